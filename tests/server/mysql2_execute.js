// The npm mysql2 client's server-side prepared statements (execute(): COM_STMT_PREPARE, then
// COM_STMT_EXECUTE; unprepare(): COM_STMT_CLOSE) and its text query(), for
// test_serve_cdc_server.py: prints one JSON line per answer.
//   node mysql2_execute.js PORT USER PASSWORD SCHEMA TABLE
const mysql = require('mysql2/promise');

const QUERY = 'SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME, COLUMN_COMMENT, ' +
  'COLUMN_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=? AND TABLE_NAME=? ' +
  'ORDER BY ORDINAL_POSITION';
const POSITIONS = 'SELECT ORDINAL_POSITION, COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS ' +
  'WHERE TABLE_SCHEMA=? AND TABLE_NAME=? ORDER BY ORDINAL_POSITION';

(async () => {
  const [port, user, password, schema, table] = process.argv.slice(2);
  const c = await mysql.createConnection({host: '127.0.0.1', port: +port, user, password});
  for (const [how, sql] of [['execute', QUERY], ['execute', POSITIONS], ['query', QUERY]]) {
    const [rows] = await c[how](sql, [schema, table]);
    console.log(JSON.stringify({how, rows}));
  }
  c.unprepare(QUERY);
  const [again] = await c.execute(QUERY, [schema, table]);   // (prepared anew)
  console.log(JSON.stringify({how: 'execute after unprepare', rows: again}));
  await c.end();
})().catch((e) => { console.error(String(e)); process.exit(1); });
