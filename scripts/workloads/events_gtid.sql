-- Workload for scripts/make_event_binlogs_gtid.sh: MariaDB GTID events with the flags and
-- fields binlog_schema/format/events/gtid.py declares. Run with `mariadb --force` (one statement is
-- meant to fail: the ALTER that binlogs START ALTER and then ROLLBACK ALTER).

CREATE DATABASE IF NOT EXISTS gt;
USE gt;
CREATE TABLE t_inno (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB;
CREATE TABLE t_aria (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=Aria;
CREATE TABLE t_myisam (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM;

-- an ordinary transaction (flags2 TRANSACTIONAL) and a non-transactional one
INSERT INTO t_inno VALUES (1, 'plain');
INSERT INTO t_myisam VALUES (1, 'plain');

-- XA: PREPARE then COMMIT (GTID with PREPARED_XA + XA_PREPARE_LOG event, then a GTID with
-- COMPLETED_XA for the XA COMMIT), with a branch qualifier and format id, ROLLBACK, ONE PHASE,
-- and a binary XID
XA START 'x1';
INSERT INTO t_inno VALUES (2, 'xa prepare+commit');
XA END 'x1';
XA PREPARE 'x1';
XA COMMIT 'x1';

XA START 'x2', 'branch-b', 7;
INSERT INTO t_inno VALUES (3, 'xa rollback');
XA END 'x2', 'branch-b', 7;
XA PREPARE 'x2', 'branch-b', 7;
XA ROLLBACK 'x2', 'branch-b', 7;

XA START 'x3';
INSERT INTO t_inno VALUES (4, 'xa one phase');
XA END 'x3';
XA COMMIT 'x3' ONE PHASE;

XA START X'00ff10', X'80', 1;
INSERT INTO t_inno VALUES (5, 'xa binary xid');
XA END X'00ff10', X'80', 1;
XA PREPARE X'00ff10', X'80', 1;
XA COMMIT X'00ff10', X'80', 1;

-- transactions over two engines (flags_extra MULTI_ENGINE, extra_engines)
BEGIN;
INSERT INTO t_inno VALUES (10, 'multi inno');
INSERT INTO t_aria VALUES (10, 'multi aria');
COMMIT;
BEGIN;
INSERT INTO t_inno VALUES (11, 'multi inno');
INSERT INTO t_myisam VALUES (11, 'multi myisam');
COMMIT;

-- two-phase ALTER (10.8+): START ALTER, then COMMIT ALTER / ROLLBACK ALTER with sa_seq_no
SET SESSION binlog_alter_two_phase = ON;
ALTER TABLE t_inno ADD COLUMN w INT;
UPDATE t_inno SET w = 1;
ALTER TABLE t_inno ADD UNIQUE KEY uw (w);   -- fails (duplicates): ROLLBACK ALTER
ALTER TABLE t_aria ADD COLUMN w INT;
SET SESSION binlog_alter_two_phase = OFF;

-- several GTID domains and server ids: the next file's GTID_LIST holds all of them
SET SESSION gtid_domain_id = 1;
INSERT INTO t_inno (id, v) VALUES (100, 'domain 1');
SET SESSION gtid_domain_id = 2;
INSERT INTO t_inno (id, v) VALUES (200, 'domain 2');
SET SESSION server_id = 7;
INSERT INTO t_inno (id, v) VALUES (201, 'domain 2, server 7');
SET SESSION gtid_domain_id = 300000;
INSERT INTO t_inno (id, v) VALUES (300, 'domain 300000');
SET SESSION server_id = 1;
SET SESSION gtid_domain_id = 0;
INSERT INTO t_inno (id, v) VALUES (400, 'domain 0 again');
