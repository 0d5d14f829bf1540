import CloudSyncModel
import Foundation
import Hummingbird

extension Receiver {
    /// `POST {base}/wearables/devices/pair`: pairs the iOS app's user with an Android user.
    func addPairingRoutes(_ router: Router<ReceiverContext>, prefix: String) {
        router.post(RouterPath("\(prefix)/wearables/devices/pair")) { request, context in
            let body = try await request.body.collect(upTo: configuration.maxBodySize)
            guard let object = JSONResponse.object(body) else {
                var errors = FieldErrors()
                errors.add("body", "not a JSON object", "value_error.jsondecode")
                return errors.response
            }
            var errors = FieldErrors()
            for key in ["userId", "deviceId", "deviceType", "generatedAt", "expiresAt", "pairingCode", "androidUserId"]
            where !(object[key] is String) {
                errors.add(key, "field required (a string)", "value_error.missing")
            }
            guard errors.isEmpty else { return errors.response }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let expires = formatter.date(from: object["expiresAt"] as! String) ?? ISO8601DateFormatter().date(from: object["expiresAt"] as! String)
            guard let expires, expires > Date() else {
                return JSONResponse.make(.badRequest, ["detail": "the pairing code has expired"])
            }
            let pairedAt = UTCDateFormatter.string(Date())
            let id = try await storage.storePairing(owner: context.user, ReceivedPairing(
                iosUserId: object["userId"] as! String, iosDeviceId: object["deviceId"] as! String,
                androidUserId: object["androidUserId"] as! String, deviceName: object["deviceName"] as? String, pairedAt: pairedAt))
            return JSONResponse.make(.created, [
                "message": "Device paired successfully", "pairing_id": String(id),
                "ios_user_id": object["userId"] as! String, "ios_device_id": object["deviceId"] as! String,
                "android_user_id": object["androidUserId"] as! String, "paired_at": pairedAt,
                "device_name": object["deviceName"] as? String ?? "",
            ])
        }
    }
}
