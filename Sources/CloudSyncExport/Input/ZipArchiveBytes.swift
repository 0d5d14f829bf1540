import CloudSyncArchive
import CloudSyncModel
import Foundation

/// The export inside a seekable zip file: the central directory lists the entries (zip64 and data
/// descriptors included), and the export entry is inflated chunk by chunk straight into the
/// parser, never to disk, reading only its own byte range. Its size and CRC-32 are checked at the end.
final class ZipArchiveBytes: ExportBytes {
    let info: ExportBytesInfo
    /// Keeps the descriptor open while the directory's range readers use it.
    private let file: FileReader
    private let directory: ZipDirectory
    private let entry: ZipEntry
    private let inflater = Inflater()

    private struct StopReading: Error {}

    init(file: FileReader, descriptor: Int32, fileSize: Int64) throws {
        self.file = file
        let name = file.name
        directory = try ZipDirectory(descriptor: descriptor, fileSize: fileSize, name: name)
        var found: ZipEntry?
        var others: [String] = []
        var unreadable: ConversionError?
        for entry in directory.entries where !entry.isDirectory {
            if found == nil, ExportInputs.isCandidateEntry(entry.path) {
                do {
                    if try Self.sniff(entry, in: directory, with: inflater) { found = entry; continue }
                } catch let error as ConversionError {
                    unreadable = unreadable ?? error
                }
            }
            others.append(entry.path)
        }
        // Most likely the export itself is damaged: say so rather than "no export".
        if found == nil, let unreadable { throw unreadable }
        guard let found else {
            throw ConversionError.notAnExport(name, "no file in the zip declares <HealthData> (\(others.count) files looked at)")
        }
        entry = found
        info = ExportBytesInfo(inputName: name, entryName: found.path, otherEntries: others, expectedBytes: found.uncompressedSize)
    }

    /// Reads the first bytes of `entry` and looks for the HealthData declaration.
    private static func sniff(_ entry: ZipEntry, in directory: ZipDirectory, with inflater: Inflater) throws -> Bool {
        var head: [UInt8] = []
        do {
            try directory.read(entry, with: inflater) { bytes in
                head.append(contentsOf: bytes.prefix(ExportInputs.sniffLength - head.count))
                if head.count >= ExportInputs.sniffLength { throw StopReading() }
            }
        } catch is StopReading {
        }
        return head.withUnsafeBufferPointer { ExportInputs.declaresHealthData($0) }
    }

    func produce(_ emit: (ByteText) throws -> Void) throws {
        try directory.readChecked(entry, with: inflater, into: emit)
    }

    /// Reads the whole entry again for its size and CRC: only after a parse error, which the entry's
    /// own damage explains better ("CRC-32 mismatch" rather than "Attribute value redefined").
    func containerDamage() -> ConversionError? {
        do {
            try directory.readChecked(entry, with: Inflater()) { _ in }
            return nil
        } catch let error as ConversionError {
            return error
        } catch {
            return nil
        }
    }
}
