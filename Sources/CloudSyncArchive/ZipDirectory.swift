package import CloudSyncModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file listed in a zip's central directory.
package struct ZipEntry {
    package var path: String
    package var flags: UInt16
    package var method: UInt16
    package var crc32: UInt32
    package var compressedSize: Int64
    package var uncompressedSize: Int64
    package var localHeaderOffset: Int64
    package var isDirectory: Bool { path.hasSuffix("/") }
}

/// The central directory of a seekable zip file, zip64 included, read with `pread`.
///
/// Ours rather than ZIPFoundation's: its `Archive.extract` loops forever at 100% CPU when an
/// entry's deflate stream does not end before the file does (`Data.decode` gets empty chunks and
/// never reports them; weichsel/ZIPFoundation#389), and it does not expose where an entry's data
/// starts, so we could not bound its reads. Every size and offset here is checked against the file.
package struct ZipDirectory {
    package let entries: [ZipEntry]
    private let descriptor: Int32
    private let fileSize: Int64
    private let name: String

    /// A central directory over this size is refused (about 600,000 entries; Apple's have thousands).
    package static let maximumDirectorySize: Int64 = 64 << 20

    private static let endOfDirectory: UInt32 = 0x0605_4B50
    private static let zip64Locator: UInt32 = 0x0706_4B50
    private static let zip64EndOfDirectory: UInt32 = 0x0606_4B50
    private static let directoryHeader: UInt32 = 0x0201_4B50
    private static let localHeader: UInt32 = 0x0403_4B50

    package init(descriptor: Int32, fileSize: Int64, name: String) throws {
        self.descriptor = descriptor
        self.fileSize = fileSize
        self.name = name
        let (offset, size, count) = try Self.locateDirectory(descriptor, fileSize, name)
        guard size <= Self.maximumDirectorySize else {
            throw ConversionError.damagedZip(name, entry: nil, "the zip directory is \(size) bytes (at most \(Self.maximumDirectorySize) are read)")
        }
        let directory = try Self.read(descriptor, at: offset, count: Int(size), name, what: "the zip directory")
        var entries: [ZipEntry] = []
        var at = 0
        while at + 46 <= directory.count, le32(directory, at) == Self.directoryHeader {
            let nameLength = Int(le16(directory, at + 28)), extraLength = Int(le16(directory, at + 30))
            let commentLength = Int(le16(directory, at + 32))
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { break }
            var entry = ZipEntry(
                path: String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self),
                flags: le16(directory, at + 8), method: le16(directory, at + 10), crc32: le32(directory, at + 16),
                compressedSize: Int64(le32(directory, at + 20)), uncompressedSize: Int64(le32(directory, at + 24)),
                localHeaderOffset: Int64(le32(directory, at + 42)))
            Self.applyZip64(Array(directory[(at + 46 + nameLength)..<(at + 46 + nameLength + extraLength)]), to: &entry)
            entries.append(entry)
            at = next
        }
        guard entries.count == count || count == 0xFFFF else {
            throw ConversionError.damagedZip(name, entry: nil, "the zip directory lists \(entries.count) files where its end record says \(count)")
        }
        self.entries = entries
    }

    /// The bytes of `entry`'s data (compressed or stored), after its local header.
    package func dataRange(of entry: ZipEntry) throws -> Range<Int64> {
        func damaged(_ why: String) -> ConversionError { .damagedZip(name, entry: entry.path, why) }
        guard entry.flags & 0x01 == 0 else { throw damaged("the entry is encrypted") }
        guard entry.method == 0 || entry.method == 8 else {
            throw damaged("compression method \(entry.method) is not supported (only stored and deflate)")
        }
        guard entry.localHeaderOffset >= 0, entry.localHeaderOffset + 30 <= fileSize else {
            throw damaged("its header offset \(entry.localHeaderOffset) is outside the file")
        }
        let header = try Self.read(descriptor, at: entry.localHeaderOffset, count: 30, name, what: "a zip entry header")
        guard le32(header, 0) == Self.localHeader else { throw damaged("no entry header where the directory points") }
        let start = entry.localHeaderOffset + 30 + Int64(le16(header, 26)) + Int64(le16(header, 28))
        guard entry.compressedSize >= 0, start <= fileSize, entry.compressedSize <= fileSize - start else {
            throw damaged("its \(entry.compressedSize) bytes of data go past the end of the file")
        }
        return start..<(start + entry.compressedSize)
    }

    /// Inflates (or copies, when stored) `entry`'s data into `handle`, reading only its byte range.
    package func read(_ entry: ZipEntry, with inflater: Inflater, into handle: (ByteText) throws -> Void) throws {
        let reader = FileReader(descriptor: descriptor, name: name, range: try dataRange(of: entry))
        inflater.reset()
        if entry.method == 0 {
            while let chunk = try reader.next() {
                inflater.updateCRC(chunk)
                try handle(chunk)
            }
        } else {
            try inflater.inflateAll(from: reader, entry: entry.path, output: handle)
        }
    }

    /// Reads the whole of `entry` like `read`, and checks it against the directory: never inflating
    /// past the declared size (a zip bomb or a damaged directory), the exact size, and the CRC-32.
    package func readChecked(_ entry: ZipEntry, with inflater: Inflater, into handle: (ByteText) throws -> Void) throws {
        var produced: Int64 = 0
        let declared = entry.uncompressedSize
        try read(entry, with: inflater) { bytes in
            produced += Int64(bytes.count)
            guard produced <= declared else {
                throw ConversionError.damagedZip(name, entry: entry.path, "it inflates to more than the \(declared) bytes the zip declares")
            }
            try handle(bytes)
        }
        guard produced == declared else {
            throw ConversionError.damagedZip(name, entry: entry.path, "it inflates to \(produced) bytes where the zip declares \(declared)")
        }
        guard inflater.crc == entry.crc32 else {
            throw ConversionError.damagedZip(name, entry: entry.path,
                String(format: "CRC-32 mismatch (computed %08x, the zip says %08x)", inflater.crc, entry.crc32))
        }
    }

    /// Offset, size and entry count of the central directory, from the end record (or its zip64 form).
    private static func locateDirectory(_ fd: Int32, _ fileSize: Int64, _ name: String) throws -> (Int64, Int64, Int) {
        // The end record is 22 bytes plus a comment of at most 65,535, so it lies in the last 65,557.
        let tailLength = Int(Swift.min(fileSize, 22 + 0xFFFF))
        let tail = try read(fd, at: fileSize - Int64(tailLength), count: tailLength, name, what: "the end of the zip")
        guard let end = stride(from: tailLength - 22, through: 0, by: -1).first(where: { le32(tail, $0) == endOfDirectory }) else {
            throw ConversionError.damagedZip(name, entry: nil, "no zip end record: the file is cut short or not a zip")
        }
        var offset = Int64(le32(tail, end + 16)), size = Int64(le32(tail, end + 12))
        var count = Int(le16(tail, end + 10))
        if end >= 20, le32(tail, end - 20) == zip64Locator {
            let recordOffset = Int64(bitPattern: le64(tail, end - 20 + 8))
            guard recordOffset >= 0, recordOffset + 56 <= fileSize else {
                throw ConversionError.damagedZip(name, entry: nil, "the zip64 end record lies outside the file")
            }
            let record = try read(fd, at: recordOffset, count: 56, name, what: "the zip64 end record")
            guard le32(record, 0) == zip64EndOfDirectory else {
                throw ConversionError.damagedZip(name, entry: nil, "no zip64 end record where its locator points")
            }
            count = Int(clamping: le64(record, 32))
            size = Int64(bitPattern: le64(record, 40))
            offset = Int64(bitPattern: le64(record, 48))
        }
        guard offset >= 0, size >= 0, offset <= fileSize, size <= fileSize - offset else {
            throw ConversionError.damagedZip(name, entry: nil, "the zip directory lies outside the file")
        }
        return (offset, size, count)
    }

    /// The zip64 extra field holds, in order, only the sizes and offset whose 32-bit field is 0xFFFFFFFF.
    private static func applyZip64(_ extra: [UInt8], to entry: inout ZipEntry) {
        var i = 0
        while i + 4 <= extra.count {
            let id = le16(extra, i), size = Int(le16(extra, i + 2))
            guard i + 4 + size <= extra.count else { return }
            if id == 0x0001 {
                var field = i + 4
                func next(_ value: inout Int64) {
                    guard value == 0xFFFF_FFFF, field + 8 <= i + 4 + size else { return }
                    value = Int64(bitPattern: le64(extra, field))
                    field += 8
                }
                next(&entry.uncompressedSize)
                next(&entry.compressedSize)
                next(&entry.localHeaderOffset)
                return
            }
            i += 4 + size
        }
    }

    private static func read(_ fd: Int32, at offset: Int64, count: Int, _ name: String, what: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            if got < 0 { throw ConversionError.unreadable(name, String(cString: strerror(errno))) }
            if got == 0 { throw ConversionError.damagedZip(name, entry: nil, "the file ends inside \(what)") }
            done += got
        }
        return bytes
    }
}
