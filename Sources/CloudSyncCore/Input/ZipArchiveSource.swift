import CloudSyncZlib
import Foundation
import ZIPFoundation

/// The export inside a seekable zip file, read with ZIPFoundation: the central directory lists the
/// entries (zip64 and data descriptors included), and the export entry is inflated chunk by chunk
/// straight into the parser, never to disk. Its CRC-32 is checked at the end.
final class ZipArchiveSource: ExportByteSource {
    let info: ExportSourceInfo
    private let archive: Archive
    private let entry: Entry

    private struct StopReading: Error {}

    init(url: URL, name: String) throws {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read, pathEncoding: .utf8)
        } catch {
            throw ConversionError.damagedZip(name, entry: nil, "cannot read the zip directory (\(error))")
        }
        var found: Entry?
        var others: [String] = []
        var unreadable: (path: String, error: any Error)?
        for entry in archive {
            if found == nil, entry.type == .file, ExportSources.isCandidateEntry(entry.path) {
                do {
                    if try Self.sniff(archive, entry) { found = entry; continue }
                } catch {
                    unreadable = unreadable ?? (entry.path, error)
                }
            }
            if entry.type == .file { others.append(entry.path) }
        }
        if found == nil, let unreadable {
            // Most likely the export itself is damaged: say so rather than "no export".
            throw ConversionError.damagedZip(name, entry: unreadable.path, "cannot inflate (\(unreadable.error))")
        }
        guard let found else {
            throw ConversionError.notAnExport(name, "no file in the zip declares <HealthData> (\(others.count) files looked at)")
        }
        self.archive = archive
        entry = found
        info = ExportSourceInfo(inputName: name, entryName: found.path, otherEntries: others)
    }

    /// Reads the first bytes of `entry` and looks for the HealthData declaration.
    private static func sniff(_ archive: Archive, _ entry: Entry) throws -> Bool {
        var head = Data()
        do {
            _ = try archive.extract(entry, bufferSize: ExportSources.sniffLength, skipCRC32: true) { data in
                head.append(data)
                if head.count >= ExportSources.sniffLength { throw StopReading() }
            }
        } catch is StopReading {
        }
        return head.withUnsafeBytes { ExportSources.declaresHealthData($0.bindMemory(to: UInt8.self)) }
    }

    func produce(_ emit: (ByteText) throws -> Void) throws {
        // ZIPFoundation's own CRC-32 on Linux is a table loop in Swift: 0.8 s per GB of XML, 17% of
        // all samples in perf. zlib's crc32 does the same check several times faster.
        var checksum: UInt32 = 0
        do {
            _ = try archive.extract(entry, bufferSize: 256 << 10, skipCRC32: true) { data in
                try data.withUnsafeBytes { raw in
                    let bytes = raw.bindMemory(to: UInt8.self)
                    checksum = UInt32(crc32(uLong(checksum), bytes.baseAddress, uInt(bytes.count)))
                    try emit(bytes)
                }
            }
        } catch let error as ConversionError {
            throw error
        } catch let error as XMLSyntaxError {
            throw error
        } catch {
            throw ConversionError.damagedZip(info.inputName, entry: entry.path, "\(error)")
        }
        guard checksum == entry.checksum else {
            throw ConversionError.damagedZip(info.inputName, entry: entry.path,
                String(format: "CRC-32 mismatch (computed %08x, the zip says %08x)", checksum, entry.checksum))
        }
    }
}
