"""Facts of the MySQL/MariaDB binlog format as data, one place each, without construct: event
type codes and kinds (:mod:`.codes`), the name tables of codes and flag bits in event bodies
(:mod:`.names`), column types (:mod:`.coltypes`), per-column TABLE_MAP metadata layouts
(:mod:`.column_metadata`), servers' flavors and versions with the FORMAT_DESCRIPTION and
checksum rules (:mod:`.flavor`), post-header lengths (:mod:`.post_header`), MariaDB's and
MySQL's compressed blocks (:mod:`.compression`), the files a server keeps beside its binlogs
(:mod:`.companions`), and the one collation table: collation ids
and names, character sets and how their text decodes (:mod:`.charsets`, with the data
generated from a server in :mod:`.collation_data` and :mod:`.charset_data`)."""
