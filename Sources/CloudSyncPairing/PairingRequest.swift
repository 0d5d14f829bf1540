import CloudSyncModel
package import Foundation

/// The pairing object the iOS app shows as a QR code (and posts, with `androidUserId`, to
/// `{base}/wearables/devices/pair`).
package struct PairingRequest: Sendable, Codable, Equatable {
    package var userId: String
    package var deviceId: String
    package var deviceName: String
    package var deviceType = "apple_watch"
    package var generatedAt: String
    package var expiresAt: String
    package var pairingCode: String
    package var androidUserId: String?

    /// A pairing valid for 15 minutes from `now`, with a fresh code.
    package init(userId: String, deviceId: String, deviceName: String, now: Date = Date()) {
        self.userId = userId
        self.deviceId = deviceId
        self.deviceName = deviceName
        generatedAt = UTCDateFormatter.string(now)
        expiresAt = UTCDateFormatter.string(now.addingTimeInterval(15 * 60))
        pairingCode = Self.makeCode()
    }

    /// `XXXX-YYYY` from A–Z and 0–9. `SystemRandomNumberGenerator` reads the kernel's CSPRNG
    /// (getrandom(2) on Linux), and `randomElement` draws without modulo bias.
    package static func makeCode() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<8).map { _ in alphabet.randomElement(using: &generator)! }
        return String(characters[0..<4]) + "-" + String(characters[4..<8])
    }

    /// The JSON, keys sorted; the QR code carries it without `androidUserId`.
    package func json(includingAndroidUser: Bool) -> Data {
        var copy = self
        if !includingAndroidUser { copy.androidUserId = nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(copy)) ?? Data()
    }
}
