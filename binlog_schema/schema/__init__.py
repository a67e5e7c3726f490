"""The schema of databases and tables as DDL defines it: the DDL parser (:mod:`.ddl`)."""
