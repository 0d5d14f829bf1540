/// Reads an export as typed `ExportElement`s, one top-level element at a time, in flat memory.
///
/// ```swift
/// try ExportReader.read("export.zip") { element in
///     if case .workout(let workout) = element { print(workout.activityType) }
/// }
/// ```
public enum ExportReader {
    /// Returns the facts of the export (source, locale, DTD) after calling `body` for every element.
    @discardableResult
    public static func read(_ path: String, _ body: @escaping (ExportElement) throws -> Void) throws -> ExportStream.Facts {
        final class Consumer: ExportElementConsumer {
            let body: (ExportElement) throws -> Void
            init(_ body: @escaping (ExportElement) throws -> Void) { self.body = body }
            func consume(_ tree: ElementTree) throws { try body(ExportElement(tree)) }
        }
        var stream = ExportStream(inputPath: path)
        try stream.run(Consumer(body))
        return stream.facts
    }
}
