import CloudSyncKinds
@testable import CloudSyncStore
import Testing

/// The `sql` tool builds `daily`'s rows only for a query that names the view: never missing one that
/// reads it (it would read rows of another zone or none), and not for every other name with `daily` in it.
@Suite struct DailyNamingTests {
    @Test(arguments: [
        "SELECT * FROM daily", "select * from DAILY", "SELECT * FROM \"daily\"", "SELECT * FROM [daily]", "SELECT * FROM `Daily`",
        "SELECT * FROM temp.daily", "SELECT avg(sum) FROM daily WHERE type = 'x'", "SELECT * FROM(daily)",
        "WITH d AS (SELECT * FROM daily) SELECT * FROM d", "SELECT * FROM\ndaily", "daily",
    ])
    func aQueryThatReadsTheViewNamesIt(query: String) {
        #expect(DailyTable.isNamed(in: query))
    }

    @Test(arguments: [
        "SELECT count(*) FROM metrics", "WITH daily_steps AS (SELECT 1 AS x) SELECT x FROM daily_steps", "SELECT 1 AS dailyish",
        "SELECT 1 AS my_daily", "SELECT 1 AS daily2", "SELECT 1 AS daily$", "SELECT 1 AS édaily", "SELECT 1 AS dailyé", "dail", "",
    ])
    func otherNamesDoNot(query: String) {
        #expect(!DailyTable.isNamed(in: query))
    }
}
