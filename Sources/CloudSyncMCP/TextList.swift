import CloudSyncModel

/// The items of a list in a tool's text: every one when a person can read them all, else the first
/// and last few with how many are left out between them. The structured answer always has them all;
/// the text is what an assistant may read instead, so it never drops items without saying so.
enum TextList {
    /// Two months of days, five years of months: listed in full.
    static let listedInFull = 60
    static let shownAtEachEnd = 5

    /// One line per item shown, each after a line break; `noun` names the items in the omitted line.
    static func lines<Item>(_ items: [Item], noun: String, plural: String? = nil, _ line: (Item) -> String) -> String {
        var text = ""
        guard items.count > listedInFull else {
            for item in items { text += "\n" + line(item) }
            return text
        }
        for item in items.prefix(shownAtEachEnd) { text += "\n" + line(item) }
        text += "\n… \(counted(items.count - 2 * shownAtEachEnd, noun, plural)) omitted here (all are in the structured result) …"
        for item in items.suffix(shownAtEachEnd) { text += "\n" + line(item) }
        return text
    }
}
