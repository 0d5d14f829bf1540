import Foundation
import ZIPFoundation

/// Real zip files for the tests, written with ZIPFoundation.
enum ZipFixtures {
    /// Writes a zip of `entries` (path → content), deflated, and returns its path.
    static func make(_ entries: [(String, Data)], in directory: URL, name: String = "export.zip",
                     method: CompressionMethod = .deflate) throws -> String {
        let url = directory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: method) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url.path
    }

    /// Offsets of every occurrence of a 4-byte signature.
    static func offsets(of signature: [UInt8], in data: Data) -> [Int] {
        let bytes = [UInt8](data)
        guard bytes.count >= 4 else { return [] }
        return (0...(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == signature }
    }
}
