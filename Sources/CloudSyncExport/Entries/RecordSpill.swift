#if canImport(Glibc)
import Glibc
#endif
import CloudSyncModel

/// Files of the archive read before they can be written (a zip from a pipe lists them before or
/// after export.xml, whose workouts and `ClinicalRecord`s they are linked to), kept in an anonymous
/// temporary file so that memory stays flat however many there are. Each is its kind's index in the
/// run and the kind's own spill encoding; written and read back within one run.
final class RecordSpill {
    /// How an error names it: where it is, for a user whose temporary folder is full.
    static var name: String { "the temporary file in \(AnonymousFile.folder) that holds the archive's other files until export.xml is read" }
    private let file: UnsafeMutablePointer<FILE>
    private(set) var count = 0

    init() throws {
        guard let file = AnonymousFile.open() else {
            let code = errno   // before the name is made
            throw ConversionError.output(Self.name, String(cString: strerror(code)))
        }
        self.file = file
    }

    deinit { fclose(file) }

    func append(kind: Int, _ entry: DecodedEntry) throws {
        var writer = SpillWriter()
        writer.put(kind)
        entry.spill(&writer)
        let bytes = writer.bytes
        var length = UInt64(bytes.count)
        guard fwrite(&length, 8, 1, file) == 1, fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw ConversionError.output(Self.name, String(cString: strerror(errno)))
        }
        count += 1
    }

    /// Reads every record back, in the order written: the kind's index, and a reader at its encoding.
    func replay(_ body: (Int, inout SpillReader) throws -> Void) throws {
        rewind(file)
        var length: UInt64 = 0
        while fread(&length, 8, 1, file) == 1 {
            var bytes = [UInt8](repeating: 0, count: Int(length))
            guard fread(&bytes, 1, bytes.count, file) == bytes.count else { break }
            var reader = SpillReader(bytes)
            let kind = reader.int()
            try body(kind, &reader)
        }
    }
}
