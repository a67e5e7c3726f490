"""What runs in Spark's executors (plain Python, no pyspark import): a file cut into splits
at transaction boundaries by a header-only pre-scan (:mod:`.prescan`: :class:`.split.Split`),
a split's records read (:mod:`.reading`, with the file's context and the table maps carried
from before it: :mod:`.split_context`), its events parsed (:mod:`.event_parser`: each
distinct TABLE_MAP body once) and decoded into the rows of the output tables
(:mod:`.decode`), column values in Spark's form (:mod:`.spark_values`), the sinks the rows
go to (:mod:`.tuple_sink`: Spark tuples, engine ``spark``; :mod:`.arrow_sink`: Arrow record
batches, engine ``arrow``, their row images' maps :mod:`.image_maps` and values' structs
:mod:`.value_structs`), Parquet parts written by the tasks (:mod:`.parts`), the schema
history a split is named from (:mod:`.history`), and the executors' Python daemon
(:mod:`.daemon`, named in the session's Spark conf).

May import :mod:`binlog_schema.pipeline.fsio` and the layers below the pipeline; never the
driver, the tables, the jobs or the sources (which use it).
"""
