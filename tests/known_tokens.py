"""A fixed, hand-written list of format-valid fake secrets in well-known formats.

Each entry: (format, text as a memory might hold it, the parts that must not survive
redaction). The values are random characters in each provider's documented shape (prefix,
alphabet, length); none is a real credential. tests/test_redact_rules.py reports how
many are redacted and benchmarks/redact.py compares detectors on them."""

from __future__ import annotations

_PEM = ("QEbZrQRax6NA4N6JEw8GTcAR2uzDhe/tHW4vYkNm/vWlnSwMScEfxJHq4rxPg4fOa9qmq5W7df7D1jfC4SuA\n"
        "Eoz+KGHz82+98PwtUE0Ql5LAm34xKylstHchJGJKFrMC")
_SSH = ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "5I4fLuyUIXtzb+4uA1YXwsa2kLcjvqjg7UBKXYHv2L42yupagHTiT2MvCf3L3juWo0XSgSxLpuSx")
_PGP = ("lQOYBGZ1c2EBCADvhGKwzKrMAi/fGUGJQk5pPbmWJbRRpJo5t5nMRrsSkZdIUUWUNb1aQr8KZE\n"
        "P25VD1Hfk9uTCxickoE7qVt1HZ5J54ayfOfPwY5W9VS1Yej8aNq/u4JCXoNXTYszbcx6")
_AZURE = "C1Vi0XZcOec+c419Z9ls3dKY8pG+mvtY8Jh3AXfcV7Gy1JgzNu1BoyBBHddgUQ6Zl+noywYbQwF278Vupxu5BQ=="
_JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZ2VudC03IiwiaWF0IjoxNzE4MDAwMDAwfQ."
        "JP6hq6ItLy8k-QY0vPToTry-L31PNgqWbch2QUxxjY_")

KNOWN: list[tuple[str, str, tuple[str, ...]]] = [
    ("AWS access key id", "the deploy user is AKIAVQJXXVBOTHD0WTFL in us-east-1", ("AKIAVQJXXVBOTHD0WTFL",)),
    ("AWS secret access key", "aws_secret_access_key = pdzPaEMM1ZA7V0FhHVJWDBt2hWdQZUm14QhoxhLP",
     ("pdzPaEMM1ZA7V0FhHVJWDBt2hWdQZUm14QhoxhLP",)),
    ("AWS credentials file", "[default]\naws_access_key_id=AKIAVQJXXVBOTHD0WTFL\n"
     "aws_secret_access_key=pdzPaEMM1ZA7V0FhHVJWDBt2hWdQZUm14QhoxhLP",
     ("AKIAVQJXXVBOTHD0WTFL", "pdzPaEMM1ZA7V0FhHVJWDBt2hWdQZUm14QhoxhLP")),
    ("GitHub classic PAT ghp_", "push with ghp_SnH6av1Ib8pp1xxXHU0BScJXj675eVq30XYq please",
     ("ghp_SnH6av1Ib8pp1xxXHU0BScJXj675eVq30XYq",)),
    ("GitHub fine-grained PAT github_pat_", "token github_pat_119D92V78EYX0G8SAX9MKN_uj64AX6VM2ewMuBY6rfNcAKEIOUttY"
     "pATIk27f4t3tGolUByxRmXBYQ0DVb for the bot", ("uj64AX6VM2ewMuBY6rfNcAKEIOUttYpATIk27f4t3tGolUByxRmXBYQ0DVb",)),
    ("GitHub OAuth token gho_", "the app got gho_aNUDqN9Nifp28uwCDydesokF5NSAllsNdV40 back",
     ("gho_aNUDqN9Nifp28uwCDydesokF5NSAllsNdV40",)),
    ("GitLab PAT glpat-", "CI uses glpat-FanUrOSE62chn4xdeJg1 to clone", ("FanUrOSE62chn4xdeJg1",)),
    ("Slack bot token xoxb-", "bot: xoxb-4307422460291-0524185755453-i7z9KwRkNr4aE28uz5eRTpPW",
     ("i7z9KwRkNr4aE28uz5eRTpPW",)),
    ("Slack user token xoxp-", "my xoxp-6644427877955-8940911020860-4692844120170-2b47fa42f93ceaf2ffbf3e0b6e9aba45",
     ("2b47fa42f93ceaf2ffbf3e0b6e9aba45",)),
    ("Slack incoming webhook", "alerts go to https://hooks.slack.com/services/T329M2WYKP4/BILSANJ7C3C/"
     "EVV8bOhUVXoqmaQzE4ftUvXQ now", ("EVV8bOhUVXoqmaQzE4ftUvXQ",)),
    ("Stripe secret key sk_live_", "stripe: sk_live_IChPnlnhG2BqxLHmAuMe57l9", ("IChPnlnhG2BqxLHmAuMe57l9",)),
    ("Stripe secret key sk_live_ (long)", "STRIPE_KEY=sk_live_51JuO4iIhOvqiZnCxh1Gd1CJoWD6W7vjmqz6mYjWc7izH9DsTNAveadCL8S"
     "by90WIJSbUGWBOWWcuaA5zbWVb2FaCo7du45pKcP", ("cuaA5zbWVb2FaCo7du45pKcP",)),
    ("Stripe restricted key rk_live_", "read-only key rk_live_753ivdSmDrUd7z14cKuuBNf0",
     ("753ivdSmDrUd7z14cKuuBNf0",)),
    ("Google API key AIza", "maps key AIzany2pg17_dUM2jNKogorTAuRVpQ09oiVeZWJ in the app",
     ("AIzany2pg17_dUM2jNKogorTAuRVpQ09oiVeZWJ",)),
    ("OpenAI key sk- (legacy)", "OPENAI_API_KEY=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",
     ("EvmkXbI8P0GwAESV5nktT3BlbkFJhBGJd8xncwjxTZVcUOpd",)),
    ("OpenAI project key sk-proj-", "use sk-proj-Ul8oPK_HJN45P-ED75cNRqsKz5b70CO8W7RQHy2Yp_ptzsJqLOJqu3g9DYpQaxEN_cNljiRkV7T3"
     "BlbkFJ1kDRuIr2jhTxs_OHKDpnJh-rgiOaPq-N9RtlnnudSkpmKog0Qwp-vaQcT7xl2cwC6dT0ctPVna today",
     ("Ul8oPK_HJN45P-ED75cNRqsKz5b70CO8W7RQ", "Qwp-vaQcT7xl2cwC6dT0ctPVna")),
    ("Anthropic key sk-ant-", "ANTHROPIC_API_KEY: sk-ant-api03-awqrczLJWImKMG4hEbuUVDPDR-m0k5iqkwUONAIifEcLav_q5ZvQm"
     "LL8ZrF8w50SR2Qugs4lIFVRdxtDyKUOtfZUTqr8aAA", ("awqrczLJWImKMG4hEbuUVDPDR", "DyKUOtfZUTqr8aAA")),
    ("npm token npm_", "publish with npm_pkRgRsaITgqLpaKoJceXBH42IkQFU960mNhJ", ("pkRgRsaITgqLpaKoJceXBH42IkQFU960mNhJ",)),
    ("npm .npmrc auth line", "//registry.npmjs.org/:_authToken=npm_pkRgRsaITgqLpaKoJceXBH42IkQFU960mNhJ",
     ("pkRgRsaITgqLpaKoJceXBH42IkQFU960mNhJ",)),
    ("PyPI token pypi-", "twine password pypi-AgEIcHlwaS5vcmcO09RnKw1zW9-ohP46PbmT1TOkzfR1wKbPXTXx8TTx4XUMGmTtfc6y_x"
     "I25MTL3xzfMg5lJYj_loHI3Yhc1OxT-8QY4-3BMDogiSTRIiP9LJm7R04ZhbGSdGWoZ6axl7KBGgMVGOYn7B3",
     ("O09RnKw1zW9-ohP46PbmT1TOkzfR1wKbPXTXx8TTx4XUMGmTtfc6y_x", "GSdGWoZ6axl7KBGgMVGOYn7B3")),
    ("Twilio account SID", "twilio account ACfeb63cc17fd04d5014995756e61d6b91", ("feb63cc17fd04d5014995756e61d6b91",)),
    ("Twilio API key SID", "twilio key SKcda411dfd72f1a3447c745c48c0b90a1", ("cda411dfd72f1a3447c745c48c0b90a1",)),
    ("SendGrid API key SG.", "mail via 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",
     ("DOOAZvw6d3eK3pxFkhJA5uFyeUhwksU8dSaNrFWv5SR",)),
    ("JSON Web Token", f"Authorization header was {_JWT} yesterday", ("JP6hq6ItLy8k-QY0vPToTry-L31PNgqWbch2QUxxjY_",)),
    ("Bearer token header", "curl -H 'Authorization: Bearer sbg9bAjtbDV3J7Y59r5zFa1lykVg5kpYYrDYo57o' api/v1",
     ("sbg9bAjtbDV3J7Y59r5zFa1lykVg5kpYYrDYo57o",)),
    ("PEM RSA private key", f"server key:\n-----BEGIN RSA PRIVATE KEY-----\n{_PEM}\n-----END RSA PRIVATE KEY-----\nok",
     tuple(_PEM.split("\n"))),
    ("PEM PKCS#8 private key", f"-----BEGIN PRIVATE KEY-----\n{_PEM}\n-----END PRIVATE KEY-----",
     tuple(_PEM.split("\n"))),
    ("OpenSSH private key", f"id_ed25519:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{_SSH}\n-----END OPENSSH PRIVATE KEY-----",
     tuple(_SSH.split("\n"))),
    ("PGP private key block", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{_PGP}\n=Xq3f\n-----END PGP PRIVATE KEY BLOCK-----",
     tuple(_PGP.split("\n"))),
    ("Private key in a JSON string", '{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + _PEM.replace("\n", "\\n")
     + '\\n-----END PRIVATE KEY-----\\n"}', tuple(_PEM.split("\n"))),
    ("age secret key", "backup identity AGE-SECRET-KEY-19KRTLEGVW7UNXA3ZM6T35PERLN4TRHK2MJLKX87MAHMQK6VH5NXUXEFZZ4",
     ("9KRTLEGVW7UNXA3ZM6T35PERLN4TRHK2MJLKX87MAHMQK6VH5NXUXEFZZ4",)),
    ("Postgres URL with password", "DATABASE_URL=postgres://app:Wq8vN3xLp2@db.internal:5432/prod", ("Wq8vN3xLp2",)),
    ("MySQL URL with password", "connect to mysql://root:hunter2-Zq9@10.0.0.5:3306/shop", ("hunter2-Zq9",)),
    ("MongoDB SRV URL with password", "mongodb+srv://svc:Tr7kLm2Qx9@cluster0.ab1cd.mongodb.net/app",
     ("Tr7kLm2Qx9",)),
    ("Redis URL with password", "cache is redis://:s3cretRedisPw@cache:6379/0", ("s3cretRedisPw",)),
    ("Azure storage connection string", "DefaultEndpointsProtocol=https;AccountName=logs7;AccountKey="
     f"{_AZURE};EndpointSuffix=core.windows.net", (_AZURE[:40],)),
    ("Hugging Face token hf_", "HF_TOKEN=hf_VbI2fcZpddioUgImdhCEImzQf6CKbD5FqW", ("VbI2fcZpddioUgImdhCEImzQf6CKbD5FqW",)),
    ("Discord bot token", "discord bot M1VnsYejRKg955U3kgXQMlO6.UsBCho.8eg5NwFD2D0wQS82YTyr_n-dryG",
     ("8eg5NwFD2D0wQS82YTyr_n-dryG",)),
    ("Telegram bot token", "telegram bot 709388485:AAlNmbh_-3UHdgBDJppkFFEZciCQP00U87j",
     ("AAlNmbh_-3UHdgBDJppkFFEZciCQP00U87j",)),
    ("Mailchimp API key", "mailchimp 58b6736c838acdc4bbe92537f2f26ff2-us14", ("58b6736c838acdc4bbe92537f2f26ff2",)),
    ("Square OAuth secret sq0csp-", "square secret sq0csp-LWeajzV6xuRXLAsfmhVwlva-byCSEsWAGU0g47kCxhG",
     ("LWeajzV6xuRXLAsfmhVwlva-byCSEsWAGU0g47kCxhG",)),
    ("Shopify access token shpat_", "shop admin 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",
     ("e4bd6e1e465a7829ebc325bd99413187",)),
    ("DigitalOcean token dop_v1_", "doctl auth dop_v1_604e8ef1b12a80bf8843075b7d1fb63c0ad3995bd6c96fde1797abd723e1f94f",
     ("604e8ef1b12a80bf8843075b7d1fb63c0ad3995bd6c96fde1797abd723e1f94f",)),
    ("password = \"...\" (quoted)", 'db_password = "IHNaQzlMKYdILjCZ"', ("IHNaQzlMKYdILjCZ",)),
    ("password: ... (YAML, unquoted)", "  password: IHNaQzlMKYdILjCZ", ("IHNaQzlMKYdILjCZ",)),
    ("api_key: ... (unquoted)", "api_key: ae578485090fb254c2a992a5bb364573", ("ae578485090fb254c2a992a5bb364573",)),
    ("API_KEY=... (.env)", "API_KEY=ae578485090fb254c2a992a5bb364573", ("ae578485090fb254c2a992a5bb364573",)),
    ("client secret in JSON", '{"client_secret": "IHNaQzlMKYdILjCZ-x7"}', ("IHNaQzlMKYdILjCZ-x7",)),
    ("password in prose", "the wifi password is IHNaQzlMKYdILjCZ", ("IHNaQzlMKYdILjCZ",)),
]
