"""Changes: typed views of what the binlog says happened. Table maps (:mod:`.table_map`),
row changes named by the table map or the schema history (:mod:`.row_change`), transactions
and change records with the one transaction-boundary rule (:mod:`.transactions`), statements
(:mod:`.statements`), the filters and the row predicate (:mod:`.selection`,
:mod:`.row_match`), the figures of ``stats`` (:mod:`.stats`), files read backwards and
transactions inverted (:mod:`.backwards`, :mod:`.flashback`), and the schema at event time
(:mod:`.schema`: the DDL grammar and its replay).

Imports the format and the declaration machinery, nothing above (docs/architecture.md).
"""
