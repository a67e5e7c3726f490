"""Coverage-guided fuzz targets (atheris) for binlog_schema; see fuzz/README.md."""
