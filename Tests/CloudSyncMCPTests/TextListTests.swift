@testable import CloudSyncMCP
import Testing

/// A list in a tool's text: all of it, or its ends and how much is left out.
@Suite struct TextListTests {
    @Test func listsEveryItemUpToTheLimit() {
        let lines = TextList.lines(Array(1...TextList.listedInFull), noun: "bucket") { "item \($0)" }.split(separator: "\n")
        #expect(lines.count == TextList.listedInFull && lines.first == "item 1" && lines.last == "item \(TextList.listedInFull)")
    }

    @Test func pastTheLimitGivesTheEndsAndTheCountLeftOut() {
        let lines = TextList.lines(Array(1...100), noun: "bucket") { "item \($0)" }.split(separator: "\n")
        #expect(lines.count == 2 * TextList.shownAtEachEnd + 1)
        #expect(lines.first == "item 1" && lines.last == "item 100")
        #expect(lines[TextList.shownAtEachEnd].contains("\(100 - 2 * TextList.shownAtEachEnd) buckets omitted"))
    }
}
