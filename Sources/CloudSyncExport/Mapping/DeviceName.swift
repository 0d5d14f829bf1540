public import CloudSyncModel
/// The `name:` field of the `HKDevice` description export.xml writes as `device`:
/// `<<HKDevice: 0x283bd4c30>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, …>`.
public enum DeviceName {
    public static let unknown: StaticString = "Unknown"

    /// The device name, or nil when the attribute has no `name:` field.
    public static func name(in device: ByteText) -> ByteText? {
        guard let range = device.firstRange(of: "name:") else { return nil }
        // Must start a field: after ", " or the opening "<".
        if range.lowerBound > 0 {
            let before = device[range.lowerBound - 1]
            guard before == 0x20 || before == UInt8(ascii: ",") || before == UInt8(ascii: "<") else { return nil }
        }
        var end = range.upperBound
        while end < device.count, device[end] != UInt8(ascii: ","), device[end] != UInt8(ascii: ">") { end += 1 }
        var start = range.upperBound
        while start < end, device[start] == 0x20 { start += 1 }
        while end > start, device[end - 1] == 0x20 { end -= 1 }
        return end > start ? device.slice(start..<end) : nil
    }
}
