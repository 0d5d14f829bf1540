@testable import CloudSyncPairing
import CloudSyncTesting
import CloudSyncZlib
import Foundation
import Testing

/// The QR code libqrencode makes, as the terminal draws it and as the PNG holds it: checked against
/// the QR code standard's fixed patterns, against the PNG format (chunks, CRCs, the zlib stream,
/// pixels), and decoded by an independent reader (zbarimg).
@Suite struct QRCodeTests {
    static let pairing = PairingRequest(userId: "7B4F0C52-5D0B-4C2A-9E61-0C9D51D2A8F1", deviceId: "E2C8A3B4-0F5D-4F69-8A53-6E1E6C3F2D90",
                                        deviceName: "Test Mac", now: Date(timeIntervalSince1970: 1_700_000_000))
    static var pairingText: String { String(decoding: pairing.json(includingAndroidUser: false), as: UTF8.self) }

    /// A 7 × 7 finder pattern at (x, y): a dark ring, a light ring, a dark 3 × 3 centre.
    static func isFinder(_ code: QRCode, x: Int, y: Int) -> Bool {
        for dy in 0..<7 {
            for dx in 0..<7 {
                let ring = max(abs(dx - 3), abs(dy - 3))
                if code.isDark(x + dx, y + dy) != (ring != 2) { return false }
            }
        }
        return true
    }

    @Test(arguments: ["A", "ABCD-1234", QRCodeTests.pairingText])
    func theCodeHasTheStandardsFixedPatterns(_ text: String) throws {
        let code = try QRCode(text)
        // A version v code is 17 + 4v modules a side.
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0, "\(code.size)")
        #expect(code.modules.count == code.size * code.size)
        #expect(Self.isFinder(code, x: 0, y: 0) && Self.isFinder(code, x: code.size - 7, y: 0) && Self.isFinder(code, x: 0, y: code.size - 7))
        #expect(!Self.isFinder(code, x: code.size - 7, y: code.size - 7))   // three finders, not four
        // The timing patterns between the finders alternate, dark on even positions.
        for i in 8..<(code.size - 8) {
            #expect(code.isDark(i, 6) == (i % 2 == 0) && code.isDark(6, i) == (i % 2 == 0), "timing at \(i)")
        }
        // Outside the code everything is light (the quiet zone).
        #expect(!code.isDark(-1, 0) && !code.isDark(0, code.size) && !code.isDark(code.size, code.size - 1))
    }

    @Test func theTerminalDrawingIsTheCodeTwoRowsALine() throws {
        let code = try QRCode(Self.pairingText)
        let margin = 2
        let lines = code.terminalText(margin: margin).components(separatedBy: "\n")
        let side = code.size + 2 * margin
        #expect(lines.count == (side + 1) / 2)
        #expect(lines.allSatisfy { $0.count == side })
        // Read the half blocks back: light is drawn, so "█" is light over light, " " dark over dark.
        for (row, line) in lines.enumerated() {
            for (column, character) in line.enumerated() {
                let (topLight, bottomLight): (Bool, Bool) = switch character {
                case "█": (true, true)
                case "▀": (true, false)
                case "▄": (false, true)
                case " ": (false, false)
                default: (false, false)
                }
                #expect("█▀▄ ".contains(character), "\(character)")
                let x = column - margin, y = 2 * row - margin
                #expect(topLight == !code.isDark(x, y) && bottomLight == !code.isDark(x, y + 1), "(\(x), \(y))")
            }
        }
    }

    /// A PNG's chunks: (type, payload), each checked against its length and CRC.
    static func chunks(_ png: Data) throws -> [(type: String, payload: Data)] {
        let bytes = [UInt8](png)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var chunks: [(String, Data)] = []
        var offset = 8
        func bigEndian(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        while offset < bytes.count {
            try #require(offset + 12 <= bytes.count, "a chunk header runs past the end at \(offset)")
            let length = bigEndian(offset)
            try #require(offset + 12 + length <= bytes.count, "a chunk runs past the end at \(offset)")
            let typed = Data(bytes[(offset + 4)..<(offset + 8 + length)])
            #expect(UInt32(bigEndian(offset + 8 + length)) == crc32(typed), "CRC of the chunk at \(offset)")
            chunks.append((String(decoding: typed.prefix(4), as: UTF8.self), typed.dropFirst(4)))
            offset += 12 + length
        }
        #expect(offset == bytes.count)
        return chunks
    }

    /// zlib's inflate of a whole stream, which checks its header and Adler-32.
    static func inflate(_ data: Data, expected: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: expected + 1)
        var length = uLongf(output.count)
        let input = [UInt8](data)
        let status = uncompress(&output, &length, input, uLong(input.count))
        try #require(status == Z_OK, "zlib: \(status)")
        return Array(output.prefix(Int(length)))
    }

    @Test(arguments: [1, 3, 8])
    func thePNGIsAValidGreyscaleImageOfTheCode(scale: Int) throws {
        let code = try QRCode(Self.pairingText)
        let margin = 4
        let png = code.png(scale: scale, margin: margin)
        let chunks = try Self.chunks(png)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        let side = (code.size + 2 * margin) * scale
        var header = Data()
        header.appendBigEndian(UInt32(side))
        header.appendBigEndian(UInt32(side))
        // 8 bits, greyscale, deflate, adaptive filtering, no interlace.
        #expect(chunks.first?.payload == header + Data([8, 0, 0, 0, 0]))
        #expect(chunks.last?.payload.isEmpty == true)
        let pixels = try Self.inflate(chunks[1].payload, expected: side * (side + 1))
        #expect(pixels.count == side * (side + 1))
        for y in 0..<side {
            let line = pixels[(y * (side + 1))..<((y + 1) * (side + 1))]
            #expect(line.first == 0, "scanline \(y) is not filter type 0")
            for (x, pixel) in line.dropFirst().enumerated() {
                let dark = code.isDark(x / scale - margin, y / scale - margin)
                if pixel != (dark ? 0 : 255) {
                    Issue.record("pixel (\(x), \(y)) is \(pixel), its module is \(dark ? "dark" : "light")")
                    return
                }
            }
        }
    }

    /// zbarimg (Debian's zbar-tools) reads the image back: the pairing object, every byte of it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"), "zbarimg is not installed (Debian: zbar-tools): QR decoding skipped"),
          arguments: [QRCodeTests.pairingText, "ABCD-1234", String(repeating: "0123456789", count: 60)])
    func anIndependentReaderDecodesThePNG(_ text: String) throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("qr.png")
        try QRCode(text).png().write(to: file)
        let decoded = try CLI.run(["-q", "--raw", file.path], tool: "/usr/bin/zbarimg")
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(String(decoding: decoded.stdout, as: UTF8.self) == text + "\n")
    }

    @Test func aTextTooLongForAQRCodeIsRefused() throws {
        // At error correction level M, the largest code (version 40, 177 modules a side) holds 2331 bytes.
        #expect(try QRCode(String(repeating: "x", count: 2331)).size == 177)
        #expect(throws: QRCode.EncodingError.self) { try QRCode(String(repeating: "x", count: 2332)) }
        #expect("\(QRCode.EncodingError())" == "the text is too long for a QR code")
    }
}
