#!/usr/bin/env bash
# Produce a LARGE, realistic MariaDB binlog for benchmarks.
#
#   scripts/make_large_binlog.sh [SIZE_MIB]        (default 128)
#
# Starts a fresh private server "large" (scripts/mariadb.sh; ROW format,
# binlog_row_metadata=FULL, CRC32 checksums), then writes:
#   1. SMALL_TXNS (default 60000) single-row autocommit INSERT/UPDATE/DELETE
#      statements, spread over 6 tables (each one: GTID, ANNOTATE_ROWS,
#      TABLE_MAP, rows event, XID) -> table-map-heavy decoding;
#   2. a handful of statement-based transactions (QUERY events with status
#      vars, INTVAR and USER_VAR events);
#   3. bulk rounds of multi-row INSERT ... SELECT from the SEQUENCE engine,
#      range UPDATEs (before/after images) and DELETEs, until the binlog holds
#      SIZE_MIB MiB -> row-heavy decoding;
#   4. a few more statement-based transactions.
# Row values are deterministic functions of the row id (event timestamps,
# server UUID-free GTIDs 0-1-N aside).  The binlog is copied, after a clean
# shutdown, to .work/large/mariadb-large.NNNNNN (max_binlog_size=1G, so
# normally one file); the server is stopped at the end (also on failure).
#
# Environment: SMALL_TXNS (single-row statements, default 60000),
# BULK_ROWS (rows per table per bulk round, default 2000).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

SIZE_MIB="${1:-128}"
[[ "$SIZE_MIB" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SIZE_MIB]" >&2; exit 2; }
SMALL_TXNS="${SMALL_TXNS:-60000}"
BULK_ROWS="${BULK_ROWS:-2000}"
TARGET_BYTES=$((SIZE_MIB * 1024 * 1024))

NAME=large
M=scripts/mariadb.sh
OUT=.work/large
T0=$(date +%s)

log() { echo "[$(( $(date +%s) - T0 ))s] $*" >&2; }

sql() {  # SQL on stdin, into database bench
    "$M" sql "$NAME" --default-character-set=utf8mb4 bench "$@"
}
q() {  # q SQL -> tab-separated rows, no headers
    printf '%s\n' "$1" | "$M" sql "$NAME" -N -B
}
binlog_bytes() {  # total size of all binlog files
    q 'SHOW BINARY LOGS' | awk '{ s += $2 } END { print s + 0 }'
}

started=0
cleanup() {
    if [ "$started" = 1 ]; then
        "$M" stop "$NAME" || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$M" destroy "$NAME" >/dev/null 2>&1 || true
rm -rf "$OUT"
mkdir -p "$OUT"

env_lines="$("$M" start "$NAME" \
    --binlog-format=ROW --binlog-row-metadata=FULL --binlog-checksum=CRC32 \
    --max-binlog-size=1G \
    --default-time-zone=+00:00 \
    --innodb-flush-log-at-trx-commit=0 --sync-binlog=0 \
    --innodb-buffer-pool-size=256M --innodb-log-file-size=256M \
    --innodb-doublewrite=0)"
started=1
binlog_dir="$(printf '%s\n' "$env_lines" | sed -n 's/^binlog_dir=//p')"
[ -d "$binlog_dir" ] || { echo "no binlog_dir from mariadb.sh start" >&2; exit 1; }
log "MariaDB $(q 'SELECT VERSION()'), target ${SIZE_MIB} MiB"

q 'CREATE DATABASE bench'

# ---------------------------------------------------------------------------
# Schema.  Every table t_X has a view v_X over the SEQUENCE engine that gives
# the deterministic row of each id (column list = the table's), so
#   INSERT INTO t_X SELECT * FROM v_X WHERE id BETWEEN a AND b
# inserts rows a..b (the view is merged, `id` is the sequence's key).
# ---------------------------------------------------------------------------
TABLES=(t_int t_num t_time t_str t_doc t_orders)
SEQ=seq_1_to_4000000000

sql <<EOF
CREATE TABLE t_int (
  id  BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  ti  TINYINT NOT NULL,           tu  TINYINT UNSIGNED NOT NULL,
  si  SMALLINT NULL,              su  SMALLINT UNSIGNED NOT NULL,
  mi  MEDIUMINT NOT NULL,         mu  MEDIUMINT UNSIGNED NULL,
  i   INT NOT NULL,               iu  INT UNSIGNED NULL,
  bi  BIGINT NOT NULL,            bu  BIGINT UNSIGNED NULL
) ENGINE=InnoDB;
CREATE VIEW v_int AS SELECT
  seq AS id,
  CAST(seq * 37 % 256 AS SIGNED) - 128,
  seq * 53 % 256,
  IF(seq % 11 = 0, NULL, CAST(seq * 7919 % 65536 AS SIGNED) - 32768),
  seq * 104729 % 65536,
  CAST(seq * 7919 % 16777216 AS SIGNED) - 8388608,
  IF(seq % 7 = 0, NULL, seq * 15485863 % 16777216),
  CAST(seq * 2654435761 % 4294967296 AS SIGNED) - 2147483648,
  IF(seq % 13 = 0, NULL, seq * 2654435761 % 4294967296),
  CAST(CONV(LEFT(SHA2(seq, 256), 15), 16, 10) AS SIGNED) * IF(seq % 2, 1, -1),
  IF(seq % 17 = 0, NULL, CAST(CONV(LEFT(MD5(seq), 16), 16, 10) AS UNSIGNED))
FROM $SEQ;

CREATE TABLE t_num (
  id  BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  d   DECIMAL(20,6) NOT NULL,     dn  DECIMAL(20,6) NULL,
  f   FLOAT NULL,                 db  DOUBLE NOT NULL,
  b   BIT(13) NOT NULL,           y   YEAR NULL
) ENGINE=InnoDB;
CREATE VIEW v_num AS SELECT
  seq AS id,
  CAST(seq * 7919 % 1000000007 / 997 AS DECIMAL(20,6)) * IF(seq % 3, 1, -1),
  IF(seq % 5 = 0, NULL, CAST(seq * 31 % 100000000007 / 1000003 AS DECIMAL(20,6))),
  IF(seq % 9 = 0, NULL, CAST(seq % 100003 AS SIGNED) / 7.0 - 5000),
  (seq * 7919 % 1000003) * PI() / IF(seq % 2, 1000, -3),
  seq * 4099 % 8192,
  IF(seq % 19 = 0, NULL, 1901 + seq % 255)
FROM $SEQ;

CREATE TABLE t_time (
  id  BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  d   DATE NOT NULL,              dt  DATETIME(6) NOT NULL,
  ts  TIMESTAMP(3) NULL DEFAULT NULL,
  tm  TIME(2) NULL,               y   YEAR NOT NULL,
  dt0 DATETIME NULL
) ENGINE=InnoDB;
CREATE VIEW v_time AS SELECT
  seq AS id,
  DATE'1990-01-01' + INTERVAL (seq * 7 % 15000) DAY,
  TIMESTAMP'2015-01-01 00:00:00' + INTERVAL (seq * 7919 % 300000000) SECOND
      + INTERVAL (seq * 37 % 1000000) MICROSECOND,
  IF(seq % 6 = 0, NULL, FROM_UNIXTIME(1500000000 + seq * 61 % 500000000)
      + INTERVAL (seq % 1000) * 1000 MICROSECOND),
  IF(seq % 10 = 0, NULL, SEC_TO_TIME(CAST(seq * 7919 % 3000000 AS SIGNED) - 1500000 + (seq % 100) / 100)),
  1901 + seq * 3 % 255,
  IF(seq % 4 = 0, NULL, TIMESTAMP'2000-01-01 00:00:00' + INTERVAL (seq * 104729 % 900000000) SECOND)
FROM $SEQ;

CREATE TABLE t_str (
  id  BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  c   CHAR(20) CHARACTER SET latin1 NOT NULL,
  v   VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
  e   ENUM('new','paid','shipped','returned','cancelled') NOT NULL,
  s   SET('a','b','c','d','e','f','g','h','i') NULL,
  t   TEXT CHARACTER SET utf8mb4 NULL,
  bl  BLOB NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE VIEW v_str AS SELECT
  seq AS id,
  CONCAT('SKU-', LPAD(seq * 7 % 1000000, 8, '0'), ELT(1 + seq % 5, 'é', 'ü', 'ñ', 'ø', '')),
  IF(seq % 8 = 0, NULL, CONCAT('note ', seq, ' ',
      ELT(1 + seq % 6, 'héllo', 'naïve', '日本語', 'emoji 😀', 'Ωmega', 'plain'), ' ',
      LEFT(SHA2(seq, 256), seq % 64))),
  1 + seq % 5,
  IF(seq % 12 = 0, NULL, seq * 7 % 512),
  IF(seq % 9 = 0, NULL, REPEAT(CONCAT(MD5(seq), ' '), 1 + seq % 20)),
  IF(seq % 7 = 0, NULL, UNHEX(REPEAT(SHA2(seq, 256), 1 + seq % 8)))
FROM $SEQ;

CREATE TABLE t_doc (
  id      BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  kind    ENUM('event','profile','metric','audit') NOT NULL,
  doc     JSON NULL,
  payload BLOB NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE VIEW v_doc AS SELECT
  seq AS id,
  1 + seq % 4,
  IF(seq % 10 = 0, NULL, JSON_OBJECT(
      'id', seq, 'name', CONCAT('item-', seq), 'price', (seq % 100000) / 100,
      'ok', IF(seq % 2, 'true', 'false'),
      'tags', JSON_ARRAY(seq % 7, seq % 11, CONCAT('t', seq % 13)),
      'nested', JSON_OBJECT('a', seq * 3, 'b', LEFT(SHA2(seq, 256), 16)))),
  IF(seq % 3 = 0, NULL, UNHEX(REPEAT(MD5(seq), 1 + seq % 16)))
FROM $SEQ;

CREATE TABLE t_orders (
  id        BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  customer  INT UNSIGNED NOT NULL,
  status    ENUM('new','paid','shipped','returned','cancelled') NOT NULL,
  amount    DECIMAL(20,6) NOT NULL,
  qty       SMALLINT UNSIGNED NOT NULL,
  weight    FLOAT NULL,
  score     DOUBLE NULL,
  flags     BIT(13) NOT NULL,
  tags      SET('gift','express','fragile','bulk','intl','promo') NULL,
  created   DATETIME(6) NOT NULL,
  paid      TIMESTAMP(3) NULL DEFAULT NULL,
  ship_date DATE NULL,
  slot      TIME(2) NULL,
  model     YEAR NULL,
  sku       CHAR(20) CHARACTER SET latin1 NOT NULL,
  note      VARCHAR(200) CHARACTER SET utf8mb4 NULL,
  attrs     JSON NULL,
  KEY (customer)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE VIEW v_orders AS SELECT
  seq AS id,
  seq * 7919 % 100003,
  1 + seq % 5,
  CAST(seq * 104729 % 100000007 / 100 AS DECIMAL(20,6)),
  1 + seq % 50,
  IF(seq % 5 = 0, NULL, (seq % 10007) / 13.0),
  IF(seq % 6 = 0, NULL, SQRT(seq) * 1.5),
  seq * 13 % 8192,
  IF(seq % 4 = 0, NULL, seq % 64),
  TIMESTAMP'2020-01-01 00:00:00' + INTERVAL seq * 37 SECOND + INTERVAL seq % 999999 MICROSECOND,
  IF(seq % 3 = 0, NULL, FROM_UNIXTIME(1577836800 + seq * 41 % 200000000) + INTERVAL (seq % 997) * 1000 MICROSECOND),
  IF(seq % 5 = 1, NULL, DATE'2020-01-01' + INTERVAL (seq % 2000) DAY),
  IF(seq % 7 = 0, NULL, SEC_TO_TIME(seq % 86400 + (seq % 97) / 100)),
  IF(seq % 11 = 0, NULL, 1990 + seq % 35),
  CONCAT('P', LPAD(seq % 99991, 6, '0'), '-', ELT(1 + seq % 3, 'XL', 'M', 'Ä')),
  IF(seq % 2 = 0, NULL, CONCAT(ELT(1 + seq % 4, 'ring twice', 'leave at door', 'ƒragile ✓', 'call ☎ first'),
      ' #', seq, ' ', REPEAT('x', seq % 40))),
  IF(seq % 3 = 1, NULL, JSON_OBJECT('src', ELT(1 + seq % 3, 'web', 'app', 'pos'),
      'lines', JSON_ARRAY(seq % 100, seq % 1000, seq % 10000), 'coupon', IF(seq % 9 = 0, CONCAT('C', seq), NULL)))
FROM $SEQ;

CREATE TABLE t_log (
  id  INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  msg VARCHAR(100) CHARACTER SET utf8mb4 NOT NULL,
  n   BIGINT NULL
) ENGINE=InnoDB;
EOF

# Per-table UPDATE SET clauses (deterministic; change several columns, flip
# some NULLs).
declare -A UPD=(
  [t_int]="ti = -(ti DIV 2), tu = 255 - tu, si = IF(si IS NULL, id % 1000, NULL), iu = iu DIV 3, bi = bi DIV 7, bu = bu DIV 2 + 1"
  [t_num]="d = ROUND(d / 3, 6), dn = IF(dn IS NULL, d, NULL), f = f * 1.5, db = -db, b = b ^ 5461, y = IF(y IS NULL, 2000, NULL)"
  [t_time]="d = d + INTERVAL 1 DAY, dt = dt + INTERVAL 1234567 MICROSECOND, ts = IF(ts IS NULL, TIMESTAMP'2021-06-01 12:00:00.125', NULL), tm = ADDTIME(tm, '00:00:01.25')"
  [t_str]="c = CONCAT('U', LEFT(c, 19)), v = LEFT(CONCAT('upd ✓ ', v), 200), e = IF(e = 'new', 'paid', 'shipped'), s = s | 256, t = CONCAT(t, ' updated'), bl = REVERSE(bl)"
  [t_doc]="kind = 'audit', doc = JSON_SET(doc, '\$.rev', id % 100, '\$.price', id % 1000 / 10), payload = IF(payload IS NULL, UNHEX(MD5(id)), NULL)"
  [t_orders]="status = IF(status = 'new', 'paid', 'shipped'), amount = ROUND(amount * 1.1, 6), paid = IF(paid IS NULL, TIMESTAMP'2022-02-22 22:22:22.222', paid), note = LEFT(CONCAT(COALESCE(note, ''), ' [upd]'), 200), flags = flags | 1024, attrs = JSON_SET(COALESCE(attrs, '{}'), '\$.state', 'updated')"
)

# ---------------------------------------------------------------------------
# 1. Many small transactions: single-row autocommit statements.  Iteration i
#    inserts row i into table i%6; i%5<3 also updates row i-3 (in table
#    (i-3)%6), i%4=0 also deletes row i-5 (in table (i-5)%6); every row
#    touched still exists.  ~1.85 statements per iteration.
#    A stored procedure is used: measured ~2x faster than piping the same
#    statements through the client.
# ---------------------------------------------------------------------------
{
    echo 'DELIMITER //'
    echo 'CREATE PROCEDURE small_txns(IN n_stmts INT)'
    echo 'BEGIN'
    echo '  DECLARE i INT DEFAULT 0;'
    echo '  DECLARE done INT DEFAULT 0;'
    echo '  WHILE done < n_stmts DO'
    echo '    SET i = i + 1;'
    echo '    CASE i % 6'
    for k in 0 1 2 3 4 5; do
        t=${TABLES[$k]}
        echo "      WHEN $k THEN INSERT INTO $t SELECT * FROM v_${t#t_} WHERE id = i;"
    done
    echo '    END CASE;'
    echo '    SET done = done + 1;'
    echo '    IF i > 3 AND i % 5 < 3 AND done < n_stmts THEN'
    echo '      CASE (i - 3) % 6'
    for k in 0 1 2 3 4 5; do
        t=${TABLES[$k]}
        echo "        WHEN $k THEN UPDATE $t SET ${UPD[$t]} WHERE id = i - 3;"
    done
    echo '      END CASE;'
    echo '      SET done = done + 1;'
    echo '    END IF;'
    echo '    IF i > 5 AND i % 4 = 0 AND done < n_stmts THEN'
    echo '      CASE (i - 5) % 6'
    for k in 0 1 2 3 4 5; do
        t=${TABLES[$k]}
        echo "        WHEN $k THEN DELETE FROM $t WHERE id = i - 5;"
    done
    echo '      END CASE;'
    echo '      SET done = done + 1;'
    echo '    END IF;'
    echo '  END WHILE;'
    echo 'END //'
    echo 'DELIMITER ;'
} | sql

log "phase 1: $SMALL_TXNS single-row autocommit statements"
echo "SET autocommit = 1; CALL small_txns($SMALL_TXNS);" | sql
log "phase 1 done, binlog $(binlog_bytes) bytes"

# ---------------------------------------------------------------------------
# 2./4. Statement-based transactions: QUERY events with status vars, plus
#       INTVAR (INSERT_ID, LAST_INSERT_ID) and USER_VAR events.
# ---------------------------------------------------------------------------
statement_txns() {  # statement_txns TAG
    sql <<EOF
SET SESSION binlog_format = STATEMENT;
INSERT INTO t_log (msg, n) VALUES ('$1: plain statement', 1);
SET @who = 'bench-$1', @num = 42, @dec = 3.25, @real = 1e100, @nul = NULL;
INSERT INTO t_log (msg, n) VALUES (CONCAT('$1: user var ', @who, ' ', @dec, ' ', @real, COALESCE(@nul, '-')), @num);
INSERT INTO t_log (msg, n) VALUES ('$1: last insert id', LAST_INSERT_ID());
BEGIN;
INSERT INTO t_log (msg, n) VALUES ('$1: in trx 1', 10), ('$1: in trx 2 ☃', 20);
UPDATE t_log SET n = n + 1 WHERE msg LIKE '$1:%';
DELETE FROM t_log WHERE n = 21 AND msg LIKE '$1:%';
COMMIT;
SET SESSION binlog_format = ROW;
EOF
}
statement_txns early

# ---------------------------------------------------------------------------
# 3. Bulk rounds until the binlog reaches SIZE_MIB.  Round r (ids
#    base+1..base+R, base = 10^9 + r*R):
#      - one INSERT ... SELECT per table (autocommit),
#      - one multi-table transaction updating even ids of three tables,
#      - range UPDATEs of the other three tables,
#      - DELETE of 3/4 of the previous round's rows.
# ---------------------------------------------------------------------------
R=$BULK_ROWS
round=0
while :; do
    size=$(binlog_bytes)
    if [ "$size" -ge "$TARGET_BYTES" ] && [ "$round" -gt 0 ]; then
        break
    fi
    base=$((1000000000 + round * R)); lo=$((base + 1)); hi=$((base + R))
    plo=$((lo - R)); phi=$((hi - R))
    {
        for t in "${TABLES[@]}"; do
            echo "INSERT INTO $t SELECT * FROM v_${t#t_} WHERE id BETWEEN $lo AND $hi;"
        done
        echo "BEGIN;"
        for t in t_orders t_str t_doc; do
            echo "UPDATE $t SET ${UPD[$t]} WHERE id BETWEEN $lo AND $hi AND id % 2 = 0;"
        done
        echo "COMMIT;"
        for t in t_int t_num t_time; do
            echo "UPDATE $t SET ${UPD[$t]} WHERE id BETWEEN $lo AND $hi AND id % 3 <> 0;"
        done
        if [ "$round" -gt 0 ]; then
            for t in "${TABLES[@]}"; do
                echo "DELETE FROM $t WHERE id BETWEEN $plo AND $phi AND id % 4 <> 0;"
            done
        fi
    } | sql
    round=$((round + 1))
    if [ "$round" = 1 ] || [ $((round % 5)) = 0 ]; then
        log "bulk round $round: binlog $(binlog_bytes) bytes"
    fi
done
log "phase 3 done after $round bulk rounds"

statement_txns late

log "binlog $(binlog_bytes) bytes; stopping server"
"$M" stop "$NAME"
started=0

# copy every binlog file (cleanly closed by the shutdown) in index order
n=0
while read -r f; do
    f="$(basename "$f")"
    n=$((n + 1))
    cp "$binlog_dir/$f" "$OUT/mariadb-large.$(printf '%06d' "$n")"
done <"$binlog_dir/mariadb-bin.index"
[ "$n" -gt 0 ] || { echo "no binlog file produced" >&2; exit 1; }

log "produced:"
python3 - "$OUT"/mariadb-large.* <<'PY'
import collections, mmap, struct, sys

NAMES = {
    2: "QUERY", 3: "STOP", 4: "ROTATE", 5: "INTVAR", 13: "RAND", 14: "USER_VAR",
    15: "FORMAT_DESCRIPTION", 16: "XID", 19: "TABLE_MAP",
    23: "WRITE_ROWS_V1", 24: "UPDATE_ROWS_V1", 25: "DELETE_ROWS_V1",
    30: "WRITE_ROWS", 31: "UPDATE_ROWS", 32: "DELETE_ROWS",
    160: "ANNOTATE_ROWS", 161: "BINLOG_CHECKPOINT", 162: "GTID", 163: "GTID_LIST",
    165: "QUERY_COMPRESSED", 166: "WRITE_ROWS_COMPRESSED_V1",
    167: "UPDATE_ROWS_COMPRESSED_V1", 168: "DELETE_ROWS_COMPRESSED_V1",
}
ROWS = {23, 24, 25, 30, 31, 32, 166, 167, 168, 169, 170, 171}
for path in sys.argv[1:]:
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert m[:4] == b"\xfebin", f"{path}: bad magic"
        counts = collections.Counter()
        pos, end = 4, len(m)
        while pos < end:
            typ = m[pos + 4]
            size, = struct.unpack_from("<I", m, pos + 9)
            if size < 19 or pos + size > end:
                raise SystemExit(f"{path}: bad event at {pos} (size {size})")
            counts[typ] += 1
            pos += size
    total = sum(counts.values())
    rows = sum(c for t, c in counts.items() if t in ROWS)
    print(f"{path}\t{end} bytes ({end / 1048576:.1f} MiB)\t{total} events, "
          f"{counts[19]} TABLE_MAP, {rows} rows events")
    for typ, c in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"    {NAMES.get(typ, f'type {typ}'):<20} {c}")
PY
log "done"
