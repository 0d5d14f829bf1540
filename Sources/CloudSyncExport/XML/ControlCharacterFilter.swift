/// Replaces the control characters XML 1.0 forbids (all below U+0020 but tab, line feed and
/// carriage return) with a space, in place.
///
/// Why: iOS 16 exports carry raw vertical tabs (U+000B) inside attribute values (device names,
/// metadata), and libxml2 stops at the first one with a fatal error. A space keeps every other byte
/// where it was, so line and column numbers stay right. Runs over every byte of the export, so it
/// checks 16 bytes at a time and only looks closer when a block holds a byte below 0x20.
public enum ControlCharacterFilter {
    /// Returns how many bytes were replaced.
    public static func replaceForbidden(in buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let n = buffer.count
        var replaced = 0
        var i = 0
        let space = SIMD16<UInt8>(repeating: 0x20)
        while i + 16 <= n {
            let block = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
            if any(block .< space) {
                replaced += replaceScalar(base + i, 16)
            }
            i += 16
        }
        replaced += replaceScalar(base + i, n - i)
        return replaced
    }

    static func replaceScalar(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int {
        var replaced = 0
        for j in 0..<n {
            let byte = p[j]
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                p[j] = 0x20
                replaced += 1
            }
        }
        return replaced
    }
}
