"""The data pipeline on Spark: binlog files in, typed tables out (being written)."""
