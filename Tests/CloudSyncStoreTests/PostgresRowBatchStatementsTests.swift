@testable import CloudSyncStore
import Testing

/// A batch's statement made from its SQL (`PostgresRowBatch.statements`): the rows' table written
/// in, and the form without its ending that ignores conflicts.
struct PostgresRowBatchStatementsTests {
    @Test func theTableIsWrittenInAndTheIgnoringEndingTakenOff() {
        let made = PostgresRowBatch.statements("INSERT INTO m(a) SELECT c0 FROM {rows} WHERE c0 > '{x}'\nON CONFLICT DO NOTHING\n  ", rows: "cloudsync_rows_3")
        #expect(made.insert == "INSERT INTO m(a) SELECT c0 FROM cloudsync_rows_3 WHERE c0 > '{x}'\nON CONFLICT DO NOTHING\n  ")
        #expect(made.plain == "INSERT INTO m(a) SELECT c0 FROM cloudsync_rows_3 WHERE c0 > '{x}'\n")
        let upsert = PostgresRowBatch.statements("INSERT INTO h SELECT * FROM {rows} ON CONFLICT (k) DO UPDATE SET n = h.n + 1", rows: "r")
        #expect(upsert.insert == "INSERT INTO h SELECT * FROM r ON CONFLICT (k) DO UPDATE SET n = h.n + 1")
        #expect(upsert.plain == nil)
        #expect(PostgresRowBatch.statements("{rows}{rows}{", rows: "r").insert == "rr{")
    }
}
