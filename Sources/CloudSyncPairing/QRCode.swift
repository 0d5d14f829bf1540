import CQRencode
package import Foundation

/// A QR code made by libqrencode (Debian's libqrencode-dev).
package struct QRCode: Sendable {
    /// Modules per side.
    package let size: Int
    /// Row-major, true for dark.
    package let modules: [Bool]

    package struct EncodingError: Error, CustomStringConvertible {
        package var description: String { "the text is too long for a QR code" }
    }

    package init(_ text: String) throws {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { throw EncodingError() }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits describe its role.
        modules = (0..<(size * size)).map { code.pointee.data[$0] & 1 == 1 }
    }

    package func isDark(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    /// Two module rows per text line with UTF-8 half blocks, dark modules drawn as spaces on a
    /// light quiet zone of `margin` modules, which phones read on dark and light terminals alike.
    package func terminalText(margin: Int = 2) -> String {
        var lines: [String] = []
        var y = -margin
        while y < size + margin {
            var line = ""
            for x in -margin..<(size + margin) {
                let top = !isDark(x, y), bottom = !isDark(x, y + 1)  // light is drawn
                switch (top, bottom) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }

    /// A greyscale PNG, `scale` pixels per module, with a quiet zone of 4 modules.
    package func png(scale: Int = 8, margin: Int = 4) -> Data {
        let side = (size + 2 * margin) * scale
        var pixels = [UInt8]()
        pixels.reserveCapacity((side + 1) * side)
        for py in 0..<side {
            pixels.append(0)  // filter type: none
            for px in 0..<side {
                pixels.append(isDark(px / scale - margin, py / scale - margin) ? 0 : 255)
            }
        }
        return PNGWriter.greyscale(width: side, height: side, scanlines: pixels)
    }
}
