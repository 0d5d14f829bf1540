import CloudSyncArchive
import CloudSyncModel
import Foundation
import Glibc
/// Where the export's XML bytes come from, and what else the input holds.
public struct ExportBytesInfo: Sendable {
    /// The input as the user named it (`export.zip`, `-` shown as "standard input").
    public var inputName: String
    /// The zip entry holding the export, when the input is a zip.
    public var entryName: String?
    /// The other files of the zip (routes, ECGs, clinical records, export_cda.xml…).
    public var otherEntries: [String] = []
    /// The export's XML size when known before reading it (a file, a seekable zip's directory).
    public var expectedBytes: Int64?
    public var isZip: Bool { entryName != nil }
}

/// Produces the export's XML bytes, in order, in chunks of any size.
protocol ExportBytes: AnyObject {
    var info: ExportBytesInfo { get }
    /// Calls `emit` with consecutive chunks of the XML; throws `ConversionError` on damage.
    func produce(_ emit: (ByteText) throws -> Void) throws
    /// After the XML turned out malformed: the damage of the container that explains it (a zip
    /// entry whose CRC does not match inflates to garbage the parser stops on first), if any.
    func containerDamage() -> ConversionError?
}

extension ExportBytes {
    func containerDamage() -> ConversionError? { nil }
}

public enum ExportInputs {
    static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    static let emptyZipMagic: [UInt8] = [0x50, 0x4B, 0x05, 0x06]

    /// Opens the input (a path, `-` for standard input, or an open stream) and tells zip from XML by
    /// the first bytes.
    static func open(_ input: ExportInput, shouldStop: @escaping @Sendable () -> Bool = { false },
                     streamed: DecodedEntries? = nil) throws -> any ExportBytes {
        let isStdin = input.isStandardInput
        let name = input.name
        let fd = input.descriptor ?? (isStdin ? STDIN_FILENO : Glibc.open(input.path, O_RDONLY | O_CLOEXEC))
        guard fd >= 0 else { throw ConversionError.unreadable(name, String(cString: strerror(errno))) }
        let kind = FileKind(descriptor: fd)
        if kind == .directory { throw ConversionError.unreadable(name, "is a directory") }
        let reader = FileReader(descriptor: fd, name: name, owns: !isStdin && input.descriptor == nil)
        if kind != .regular { reader.waitsInterruptibly(shouldStop) }
        let prefix = try reader.peek(4)
        if prefix.isEmpty { throw ConversionError.notAnExport(name, "the input is empty") }
        if prefix == emptyZipMagic { throw ConversionError.notAnExport(name, "the zip archive is empty") }
        if let first = prefix.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            // JSON: Health Auto Export's documents are told by their start where it can be read again.
            throw ConversionError.notAnExport(name, isStdin
                ? "it is JSON; from a pipe, standard input takes a zip or XML: name Health Auto Export's file, or redirect it (< FILE.json)"
                : "it is JSON, not an Apple Health export (nor Health Auto Export's: no \"data\" object in its first 4 KiB)")
        }
        guard prefix == zipMagic else {
            // fstat, not lseek: the reader goes on reading sequentially from the current offset.
            return PlainXMLBytes(reader: reader, size: kind == .regular ? FileKind.size(of: fd) : nil)
        }
        if kind == .regular {
            // A seekable zip: read it through its central directory.
            let size = lseek(fd, 0, SEEK_END)
            guard size >= 0 else { throw ConversionError.unreadable(name, String(cString: strerror(errno))) }
            return try ZipArchiveBytes(file: reader, descriptor: fd, fileSize: Int64(size))
        }
        return try StreamingZipBytes(reader: reader, streamed: streamed)
    }

    /// The path to open `input` by when it must be read in any order (a zip's other entries):
    /// `-` redirected from a regular file is that file, reopened through `/dev/stdin`; `-` from a
    /// pipe stays `-` (read as a stream).
    package static func seekablePath(_ input: String) -> String {
        guard input == "-", FileKind(descriptor: STDIN_FILENO) == .regular, FileManager.default.fileExists(atPath: "/dev/stdin") else {
            return input
        }
        return "/dev/stdin"
    }

    /// The input's size in bytes, when it is a file (`-` redirected from one included).
    public static func inputSize(_ input: String) -> Int64? { FileKind.size(path: seekablePath(input)) }

    /// True when the first bytes of a file declare an Apple Health export.
    static func declaresHealthData(_ head: ByteText) -> Bool {
        head.contains("<!DOCTYPE HealthData") || head.contains("<HealthData")
    }

    /// Zip entries that cannot be the main export, whatever their content.
    static func isCandidateEntry(_ path: String) -> Bool {
        let lower = path.lowercased()
        let last = lower.split(separator: "/").last.map(String.init) ?? lower
        return !lower.hasSuffix("/") && !lower.hasPrefix("__macosx/") && !lower.contains("/__macosx/")
            && lower.hasSuffix(".xml") && last != "export_cda.xml" && !last.hasPrefix("._")
    }

    /// How many leading bytes of an entry are read to recognise the export.
    static let sniffLength = 4096
}

/// An uncompressed export.xml (a file or standard input).
final class PlainXMLBytes: ExportBytes {
    let info: ExportBytesInfo
    private let reader: FileReader

    init(reader: FileReader, size: Int64?) {
        self.reader = reader
        info = ExportBytesInfo(inputName: reader.name, expectedBytes: size)
    }

    func produce(_ emit: (ByteText) throws -> Void) throws {
        while let chunk = try reader.next() { try emit(chunk) }
    }
}
