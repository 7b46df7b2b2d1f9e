import time
def test_probe(git_remotes):
    git_remotes.daemon("a"); git_remotes.http("a"); git_remotes.ssh("a")
    time.sleep(30)
