/// The one pass over export.xml's bytes before libxml2, in place, on the reader thread: the
/// forbidden control characters become spaces (`ControlCharacterFilter`), then the `&` of each
/// `&lt;` and `&gt;` becomes the mark (`EntityMarks`). In that order: once the raw DELs are spaces,
/// every DEL left is a mark. Every byte keeps its place, so libxml2's lines and columns are the file's.
public enum ExportBytePass {
    /// Returns how many bytes were replaced with a space (marks are not counted).
    public static func prepare(_ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let replaced = ControlCharacterFilter.replaceForbidden(in: buffer)
        EntityMarks.mark(in: buffer)
        return replaced
    }
}
