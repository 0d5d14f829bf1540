import CloudSyncModel
import Foundation

/// The pairing object the iOS app shows as a QR code (and posts, with `androidUserId`, to
/// `{base}/wearables/devices/pair`).
public struct PairingRequest: Sendable, Codable, Equatable {
    public var userId: String
    public var deviceId: String
    public var deviceName: String
    public var deviceType = "apple_watch"
    public var generatedAt: String
    public var expiresAt: String
    public var pairingCode: String
    public var androidUserId: String?

    /// A pairing valid for 15 minutes from `now`, with a fresh code.
    public init(userId: String, deviceId: String, deviceName: String, now: Date = Date()) {
        self.userId = userId
        self.deviceId = deviceId
        self.deviceName = deviceName
        generatedAt = UTCDateFormatter.string(now)
        expiresAt = UTCDateFormatter.string(now.addingTimeInterval(15 * 60))
        pairingCode = Self.makeCode()
    }

    /// `XXXX-YYYY` from A–Z and 0–9. `SystemRandomNumberGenerator` reads the kernel's CSPRNG
    /// (getrandom(2) on Linux), and `randomElement` draws without modulo bias.
    public static func makeCode() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<8).map { _ in alphabet.randomElement(using: &generator)! }
        return String(characters[0..<4]) + "-" + String(characters[4..<8])
    }

    /// The JSON, keys sorted; the QR code carries it without `androidUserId`.
    public func json(includingAndroidUser: Bool) -> Data {
        var copy = self
        if !includingAndroidUser { copy.androidUserId = nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(copy)) ?? Data()
    }
}
