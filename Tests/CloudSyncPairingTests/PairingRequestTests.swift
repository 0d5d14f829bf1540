import CloudSyncPairing
@testable import CloudSyncReceiver
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// The pairing object the iOS app shows and posts: its JSON (the QR code's text), decoded back, and
/// taken by the receiver's pairing route in process, on a real SQLite file.
@Suite struct PairingRequestTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)   // 2023-11-14T22:13:20Z

    @Test func theJSONIsTheObjectKeysSortedAndDecodesBack() throws {
        var request = PairingRequest(userId: "U-1", deviceId: "D-1", deviceName: "Zoë's Mac / desk", now: Self.now)
        #expect(request.generatedAt == "2023-11-14T22:13:20.000Z" && request.expiresAt == "2023-11-14T22:28:20.000Z")
        #expect(request.deviceType == "apple_watch" && request.androidUserId == nil)
        let shown = request.json(includingAndroidUser: false)
        let text = String(decoding: shown, as: UTF8.self)
        #expect(text == #"{"deviceId":"D-1","deviceName":"Zoë's Mac / desk","deviceType":"apple_watch","expiresAt":"2023-11-14T22:28:20.000Z","generatedAt":"2023-11-14T22:13:20.000Z","pairingCode":"\#(request.pairingCode)","userId":"U-1"}"#)
        #expect(try JSONDecoder().decode(PairingRequest.self, from: shown) == request)
        // The Android user goes only into what is posted, never into the QR code.
        request.androidUserId = "android-42"
        #expect(String(decoding: request.json(includingAndroidUser: false), as: UTF8.self) == text)
        let posted = request.json(includingAndroidUser: true)
        #expect(try JSONDecoder().decode(PairingRequest.self, from: posted) == request)
        let object = try #require(try JSONSerialization.jsonObject(with: posted) as? [String: String])
        #expect(object["androidUserId"] == "android-42" && object.count == 8)
    }

    /// `XXXX-YYYY` of A–Z and 0–9, drawn evenly: over 4000 codes every character comes, none twice.
    @Test func codesAreFreshAndUseTheWholeAlphabet() {
        let codes = (0..<4000).map { _ in PairingRequest.makeCode() }
        #expect(codes.allSatisfy { $0.wholeMatch(of: #/[A-Z0-9]{4}-[A-Z0-9]{4}/#) != nil })
        #expect(Set(codes).count == codes.count)
        var counts: [Character: Int] = [:]
        for code in codes { for character in code where character != "-" { counts[character, default: 0] += 1 } }
        #expect(counts.count == 36)
        // 32000 draws of 36: about 889 each; a bias of a few characters would show far outside this.
        #expect(counts.values.allSatisfy { (700...1080).contains($0) }, "\(counts.sorted { $0.key < $1.key })")
    }

    /// The object as the Mac makes it, with the Android user, posted to the receiver's route: paired,
    /// stored, and what the reply names is what was sent. Expired, it is refused.
    @Test func theReceiverTakesThePairingRequest() async throws {
        var configuration = ReceiverConfiguration()
        let folder = try makeTemporaryDirectory()
        configuration.databasePath = folder.appendingPathComponent("received.sqlite").path
        // A pairing is the receiver's own row; no patient's store is written.
        configuration.patientStores = PatientStoreFolder(folder: folder.appendingPathComponent("received-patients").path,
                                                         configuration: StagingStore.Configuration(kinds: []), wait: 10)
        let receiver = try await Receiver(configuration: configuration, logger: Logger(label: "pairing-tests"))
        var request = PairingRequest(userId: "U-1", deviceId: "D-1", deviceName: "Test Mac")
        request.androidUserId = "android-42"
        let body = request.json(includingAndroidUser: true)
        var expired = PairingRequest(userId: "U-1", deviceId: "D-1", deviceName: "Test Mac", now: Self.now)
        expired.androidUserId = "android-42"
        let old = expired.json(includingAndroidUser: true)
        try await Application(router: receiver.makeRouter()).test(.router) { client in
            let response = try await client.execute(uri: "/api/v1/wearables/devices/pair", method: .post, body: ByteBuffer(bytes: body))
            #expect(response.status == .created)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            #expect(answer["ios_user_id"] as? String == "U-1" && answer["ios_device_id"] as? String == "D-1")
            #expect(answer["android_user_id"] as? String == "android-42" && answer["device_name"] as? String == "Test Mac")
            #expect(answer["pairing_id"] as? String == "1")
            let refused = try await client.execute(uri: "/wearables/devices/pair", method: .post, body: ByteBuffer(bytes: old))
            #expect(refused.status == .badRequest)
        }
        let database = try SQLiteDatabase(path: configuration.databasePath, mode: .readOnly)
        #expect(try database.scalarText("SELECT ios_user_id || ' ' || ios_device_id || ' ' || android_user_id || ' ' || device_name FROM pairing")
                == "U-1 D-1 android-42 Test Mac")
        #expect(try database.scalarInt("SELECT count(*) FROM pairing") == 1)
    }
}
