"""The Spark tier's shared fixture: one Spark session per test module (``local[2]``), its
shuffle partitions the module's ``SPARK_SHUFFLE_PARTITIONS`` (default 2), stopped after the
module. pyspark is imported only when a test asks for the session (a module without Spark
skips itself first)."""

import pytest


@pytest.fixture(scope="module")
def spark(request):
    from binlog_schema.pipeline.driver.session import start_session
    partitions = getattr(request.module, "SPARK_SHUFFLE_PARTITIONS", "2")
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": partitions})
    yield s
    s.stop()
