"""Put first on PYTHONPATH, with FAKE_SKY_CLOUD set: this process's SkyPilot SDK talks to
the stand-in cloud of :mod:`tests.submit.skypilot_cloud` (a sweep's driver process)."""

import os

if os.environ.get("FAKE_SKY_CLOUD"):
    from pathlib import Path

    import sky

    from tests.submit.skypilot_cloud import Cloud

    Cloud(Path(os.environ["FAKE_SKY_CLOUD"])).install(sky)
