/// Why a conversion stopped. Every case names the input (or output) and, where known, the place.
public enum ConversionError: Error, Sendable, CustomStringConvertible {
    /// The input cannot be opened or read.
    case unreadable(String, String)
    /// The input is not an Apple Health export (what it is instead).
    case notAnExport(String, String)
    /// The XML is damaged at a line and column.
    case malformedXML(String, entry: String?, XMLSyntaxError)
    /// The zip archive is damaged.
    case damagedZip(String, entry: String?, String)
    /// The output cannot be written.
    case output(String, String)
    /// The output folder cannot be used (not empty, a file, cannot be created).
    case outputFolder(String, String)
    /// Stopped by a signal.
    case interrupted

    public var description: String {
        switch self {
        case .unreadable(let input, let why):
            return "\(input): cannot read: \(why)"
        case .notAnExport(let input, let why):
            return "\(input): not an Apple Health export: \(why)"
        case .malformedXML(let input, let entry, let error):
            let place = entry.map { "\(input) (\($0))" } ?? input
            return "\(place):\(error.line):\(error.column): damaged XML: \(error.message)"
        case .damagedZip(let input, let entry, let why):
            let place = entry.map { "\(input) (\($0))" } ?? input
            return "\(place): damaged zip: \(why)"
        case .output(let output, let why):
            return output == "standard output" ? "cannot write to standard output: \(why)" : "\(output): cannot write: \(why)"
        case .outputFolder(let folder, let why):
            return "\(folder): \(why)"
        case .interrupted:
            return "interrupted"
        }
    }
}
