-- The schema-history workload (issue 14): tables created, changed by DML, then ALTERed
-- between DML (columns added, dropped, modified, renamed; ENUM/SET members changed; the
-- primary key changed), renamed, and changed again. scripts/make_schema_binlogs.sh runs it
-- once with binlog_row_metadata=FULL and once with MINIMAL, each part (split at the
-- "-- @@ part" lines) into its own binlog files, and takes `mariadb-dump --no-data` after
-- parts a and b; tests/server/test_schema_server.py checks that every row change decoded
-- from the MINIMAL binlogs through the schema history equals the FULL binlogs' (names,
-- values, ENUM/SET members, primary key). Values are literals (no NOW(), no RAND()): both
-- passes write the same rows.
-- @@ part a: the tables and their first rows
DROP DATABASE IF EXISTS bs_schema;
CREATE DATABASE bs_schema CHARACTER SET utf8mb4;
USE bs_schema;
CREATE TABLE customers (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  tier ENUM('basic','gold','platinum') NOT NULL DEFAULT 'basic',
  tags SET('a','b','c') DEFAULT NULL,
  balance DECIMAL(10,2),
  born DATE,
  seen DATETIME(3),
  note TEXT
) ENGINE=InnoDB;
CREATE TABLE orders (
  id BIGINT NOT NULL,
  customer INT UNSIGNED NOT NULL,
  state ENUM('new','paid','shipped') NOT NULL,
  amount DECIMAL(8,2) NOT NULL,
  placed TIMESTAMP(6) NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB;
CREATE TABLE log (
  k VARCHAR(20) NOT NULL,
  seq INT NOT NULL,
  payload JSON,
  descr TEXT,
  small TINYINT,
  UNIQUE KEY ks (k, seq),
  UNIQUE KEY ud (descr)
) ENGINE=InnoDB CHARACTER SET latin1;
INSERT INTO customers (name, tier, tags, balance, born, seen, note) VALUES
  ('Ada', 'gold', 'a,c', 12.50, '1815-12-10', '2026-01-02 03:04:05.678', 'first'),
  ('Brendan', 'basic', NULL, -3.00, NULL, NULL, NULL),
  ('Chloé', 'platinum', 'b', 1000000.99, '2000-02-29', '2026-11-24 00:00:00.001', 'ünïcode ✓');
INSERT INTO orders VALUES (1, 1, 'new', 9.99, '2026-01-01 10:00:00.123456'),
  (2, 2, 'paid', 100.00, NULL), (3, 1, 'shipped', 0.01, '2026-06-30 23:59:59.999999');
INSERT INTO log VALUES ('boot', 1, '{"a": 1}', 'started', -128), ('boot', 2, NULL, NULL, 127);
UPDATE customers SET tier = 'platinum', tags = 'a,b,c' WHERE id = 1;
UPDATE orders SET state = 'paid' WHERE id = 1;
DELETE FROM orders WHERE id = 3;
BEGIN;
INSERT INTO customers (name, tier) VALUES ('Dmitri', 'gold');
UPDATE log SET descr = 'running' WHERE k = 'boot' AND seq = 2;
COMMIT;
-- @@ part b: ALTERs between DML
ALTER TABLE customers ADD COLUMN email VARCHAR(80) AFTER name,
  MODIFY tier ENUM('basic','gold','platinum','diamond') NOT NULL DEFAULT 'basic';
INSERT INTO customers (name, email, tier, tags) VALUES ('Eve', 'eve@example.com', 'diamond', 'c');
UPDATE customers SET email = 'ada@example.com' WHERE id = 1;
ALTER TABLE customers DROP COLUMN born, CHANGE note remark VARCHAR(200);
UPDATE customers SET remark = 'changed' WHERE id = 3;
ALTER TABLE orders MODIFY amount DECIMAL(12,3) NOT NULL,
  ADD COLUMN qty SMALLINT UNSIGNED NOT NULL DEFAULT 1 AFTER customer;
INSERT INTO orders (id, customer, qty, state, amount) VALUES (4, 5, 3, 'new', 123456789.125);
UPDATE orders SET qty = qty + 1, amount = amount * 2 WHERE id IN (1, 2);
ALTER TABLE customers MODIFY tags SET('a','b','c','d','e','f','g','h','i');
UPDATE customers SET tags = 'a,i' WHERE id = 2;
ALTER TABLE log MODIFY small SMALLINT, ADD COLUMN at DATETIME;
INSERT INTO log (k, seq, payload, small, at) VALUES ('tick', 1, '[1, 2]', -32768, '2026-03-04 05:06:07');
DELETE FROM log WHERE k = 'boot' AND seq = 1;
-- @@ part c: renames, a primary key change, member reorder, statement-based changes
ALTER TABLE customers RENAME COLUMN remark TO memo;
UPDATE customers SET memo = 'renamed' WHERE id = 1;
ALTER TABLE orders DROP PRIMARY KEY, ADD PRIMARY KEY (customer, id);
RENAME TABLE orders TO purchases;
INSERT INTO purchases (id, customer, state, amount) VALUES (5, 1, 'shipped', 7.5);
UPDATE purchases SET state = 'shipped' WHERE id = 2;
ALTER TABLE customers MODIFY tier ENUM('diamond','platinum','gold','basic') NOT NULL DEFAULT 'basic';
UPDATE customers SET tier = 'gold' WHERE id = 2;
INSERT INTO customers (name, email, tier) VALUES ('Farid', NULL, 'platinum');
ALTER TABLE log ADD COLUMN id INT NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST;
INSERT INTO log (k, seq, descr) VALUES ('tick', 2, 'with an id');
UPDATE log SET payload = '{"b": [true, null]}' WHERE k = 'tick';
ALTER TABLE purchases RENAME TO orders_archive, ADD COLUMN note VARCHAR(10) CHARACTER SET latin1;
INSERT INTO orders_archive (id, customer, state, amount, note) VALUES (6, 2, 'new', 1, 'late');
DELETE FROM orders_archive WHERE id = 1;
SET SESSION binlog_format = STATEMENT;
INSERT INTO log (k, seq, descr) VALUES ('stmt', 1, 'statement-based');
UPDATE customers SET balance = 0 WHERE id = 4;
SET SESSION binlog_format = ROW;
DELETE FROM customers WHERE id = 2;
