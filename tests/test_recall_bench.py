"""The LoCoMo benchmark script runs end to end on a tiny file of the same shape."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import recall_locomo as RL  # noqa: E402


def tiny(tmp_path: Path) -> Path:
    conv = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann", "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a greyhound called Pixel."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! I started pottery classes."},
            ],
            "session_2_date_time": "10:00 am on 9 June, 2023",
            "session_2": [
                {"speaker": "Ann", "dia_id": "D2:1", "text": "Pixel won a race at the track."},
                {"speaker": "Bo", "dia_id": "D2:2", "text": "My pottery teacher loved my bowl."},
            ],
        },
        "qa": [
            {"question": "What is the name of Ann's greyhound?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "What class did Bo start?", "answer": "pottery", "evidence": ["D1:02; D9:9"], "category": 1},
            {"question": "Adversarial", "answer": "", "evidence": ["D1:1"], "category": 5},
        ],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([conv]))
    return path


def test_load_follows_the_protocol(tmp_path):
    items, questions = RL.load(str(tiny(tmp_path)))
    assert len(items) == 4 and items[0]["key"] == "conv-x/D1:1" and items[0]["text"].startswith("Ann: ")
    assert items[0]["created"].startswith("2023-05-08T13:56")
    assert len(questions) == 2  # category 5 dropped
    assert questions[1]["evidence"] == {"conv-x/D1:2"}  # zero padding stripped, unknown id dropped


def test_metrics():
    m = RL.metrics(["a", "b", "c"], {"b", "z"})
    assert m["R_any@5"] == 1.0 and m["R_all@10"] == 0.0 and m["MRR@10"] == 0.5


def test_benchmark_runs_through_the_api(tmp_path, capsys):
    assert RL.main([str(tiny(tmp_path)), "--home", str(tmp_path / "h"), "--model-path", ""]) == 0
    out = capsys.readouterr().out
    assert "| hybrid |" in out and "| bm25 | 1.000" in out
