import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Uploads to a real `cloudsync serve` on 127.0.0.1, with faults injected, and crashes.
@Suite(.serialized) struct UploadTests {
    /// A store holding the sample (24 metrics) plus `heartRates` generated heart rates.
    func makeStore(heartRates: Int, in directory: URL) throws -> (path: String, metrics: Int) {
        let store = directory.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        if heartRates > 0 {
            let input = directory.appendingPathComponent("hr.xml")
            try Data(heartRateExport(count: heartRates).utf8).write(to: input)
            #expect(try CLI.run(["import", input.path, "--store", store, "-q"]).status == 0)
        }
        return (store, 24 + heartRates)
    }

    func pending(_ store: String) throws -> Int { try StatusQuery(StagingStore(path: store, access: .read)).status().pending }

    /// `--target CloudCare`, as the product writes its name, is the cloudcare target.
    @Test func aTargetInAnyCaseIsThatTarget() throws {
        let store = try makeTemporaryDirectory().appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let result = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:1", "--target", "CloudCare", "--dry-run"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("(cloudcare)"), "\(result.stderr)")
    }

    @Test func cloudCareUploadThroughFaultsEndsWithEveryMetricOnce() throws {
        let dir = try makeTemporaryDirectory()
        let (store, total) = try makeStore(heartRates: 576, in: dir)   // 600 metrics, 6 batches of 100
        // 503, 429 with Retry-After, an acknowledgement lost after the server stored the batch, a server
        // that stops answering, then a 502; and two connections reset on the way.
        let serve = try ServeProcess(["--faults", "503,429:1,lost:3,stall:3,ok,502"], directory: dir)
        let proxy = try ResettingProxy(forwardingTo: serve.port, resets: 2)
        let upload = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "http://127.0.0.1:\(proxy.port)/api/v1",
                                  "--batch-size", "100", "--timeout", "1.5", "--max-attempts", "10", "--retry-delay", "0.05"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(upload.stderr.contains("uploaded \(total) metrics in 6 batches"))
        #expect(try serve.storeCount() == total)
        #expect(try serve.count("SELECT count(*) FROM request_log WHERE status = -201") == 1)   // the lost one was stored
        #expect(try pending(store) == 0)
        let requestsBefore = try serve.count("SELECT count(*) FROM request_log")
        // The same server (state is kept per target and server; the proxy's URL is the one used).
        let again = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", "http://127.0.0.1:\(proxy.port)/api/v1"])
        #expect(again.status == 0)
        #expect(again.stderr.contains("nothing to upload"))
        #expect(try serve.count("SELECT count(*) FROM request_log") == requestsBefore)   // nothing sent
        let status = try StatusQuery(StagingStore(path: store, access: .read)).status()
        #expect(status.uploads.count == 1)          // one run (the second had nothing to send)
        #expect(status.uploads.first?.sent == total)
        #expect(status.uploads.first?.batches == 6)
        #expect(status.targets.first?.acknowledged == total)
        #expect(serve.stop() == 0)   // SIGTERM: a clean stop
        #expect(serve.log.contains("serve: stopped"))
    }

    /// `kill -9` of the uploading process half-way, then `upload` again: every metric ends up on the
    /// server exactly once, nothing stays pending, and a third upload sends nothing. For each target.
    @Test(arguments: ["cloudcare", "flo", "steps"])
    func killDuringUploadThenUploadAgainLosesAndDoublesNothing(_ target: String) throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        let input = dir.appendingPathComponent("steps.xml")
        try Data(sampleExport(count: 3000, type: "HKQuantityTypeIdentifierStepCount", unit: "count").utf8).write(to: input)
        #expect(try CLI.run(["import", input.path, "--store", store, "-q"]).status == 0)
        let total = 3000   // all StepCount, all after Flō's recommended start (2021-12-07)
        let serve = try ServeProcess(["--delay", "0.1"], directory: dir)
        let child = try BackgroundRun(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", target, "--batch-size", "100", "-q"])
        let deadline = Date().addingTimeInterval(60)
        while (try serve.storeCount()) < 500 && child.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(child.isRunning, "the upload ended before it could be killed")
        child.send(SIGKILL)
        child.finish()
        let onServer = try serve.storeCount()
        #expect(onServer > 0 && onServer < total)
        #expect(try StagingStore(path: store, access: .read).integrityCheck() == "ok")
        let again = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", target, "--batch-size", "100"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try serve.storeCount() == total)
        let status = try StatusQuery(StagingStore(path: store, access: .read)).status()
        #expect(status.targets.first { $0.target == target }?.pending == 0)
        #expect(try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", target]).stderr.contains("nothing to upload"))
        // Each sample once in the server's store, as in the one it came from.
        #expect(try serve.storeCount("SELECT count(*) FROM metric WHERE is_repeat = 0 AND superseded = 0") == total)
        if target == "flo" { #expect(try serve.count("SELECT mark_calls FROM flo_state") == 1) }
        _ = serve.stop()
    }

    @Test func aDryRunSendsNothing() throws {
        let dir = try makeTemporaryDirectory()
        let (store, _) = try makeStore(heartRates: 0, in: dir)
        let serve = try ServeProcess([], directory: dir)
        let dry = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", serve.url, "--dry-run", "--batch-size", "10"])
        #expect(dry.stderr.contains("dry run: 24 metrics to upload"))
        #expect(dry.stderr.contains("in 3 batches; nothing sent"))
        #expect(try serve.count("SELECT count(*) FROM request_log") == 0)
        _ = serve.stop()
    }

    /// Every metric before Flō's window: nothing is sent, and the upload says why, not that
    /// everything was acknowledged before (none was ever sent).
    @Test func floWithEveryMetricBeforeItsWindowSaysSo() throws {
        let dir = try makeTemporaryDirectory()
        let (store, _) = try makeStore(heartRates: 0, in: dir)
        let serve = try ServeProcess(["--recommended-start-date", "2030-01-01T00:00:00.000Z"], directory: dir)
        let result = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", "flo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("nothing to upload to \(serve.url) (flo): the 24 metrics it has not acknowledged all start before its window"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("acknowledged before"), "\(result.stderr)")
        #expect(try serve.storeCount() == 0)
    }

    @Test func floBackfillIsMarkedCompleteOnlyAfterEveryBatch() throws {
        let dir = try makeTemporaryDirectory()
        let (store, _) = try makeStore(heartRates: 0, in: dir)
        // The 2023 workout is before the recommended start: the backfill holds the 23 others.
        let serve = try ServeProcess(["--faults", "ok,503,503", "--recommended-start-date", "2024-01-01T00:00:00.000Z"], directory: dir)
        let failing = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", "flo",
                                   "--batch-size", "10", "--max-attempts", "2", "--retry-delay", "0.05"])
        #expect(failing.status == 69, "\(failing.stderr)")
        #expect(failing.stderr.contains("gave up"))
        #expect(try serve.count("SELECT mark_calls FROM flo_state") == 0)
        #expect(try serve.storeCount() == 10)
        let resumed = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", "flo", "--batch-size", "10"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("backfill marked complete"))
        #expect(try serve.storeCount() == 23)
        #expect(try serve.count("SELECT mark_calls FROM flo_state") == 1)
        #expect(try serve.count("SELECT marked_sample_count FROM flo_state") == 23)
        // Complete now: the next run sends only what is new, which is nothing.
        let next = try CLI.run(["upload", "--no-token", "--store", store, "--server", serve.url, "--target", "flo"])
        #expect(next.stderr.contains("nothing to upload"))
        #expect(try serve.count("SELECT mark_calls FROM flo_state") == 1)
        // What the server keeps is the samples themselves, in the patient's store: the same from a
        // second store of the same export, and each as the store it came from has it (its type, dates,
        // value and metadata). The wire's uuids and fields are UploadContractTests'.
        let other = dir.appendingPathComponent("other.sqlite").path
        _ = try CLI.run(["import", CLI.sample, "--store", other, "-q"])
        let serve2 = try ServeProcess(["--recommended-start-date", "2024-01-01T00:00:00.000Z"], directory: try makeTemporaryDirectory())
        _ = try CLI.run(["upload", "--no-token", "--store", other, "--server", serve2.url, "--target", "flo"])
        let exported = { (path: String) in String(decoding: try CLI.run(["export", "--store", path, "--since", "2024-01-01"]).stdout, as: UTF8.self) }
        let onServer = try exported(serve.storePath())
        #expect(onServer == (try exported(serve2.storePath())))
        // The same objects (a metadata object's members in another order: they came through a JSON object).
        let objects = { (text: String) in try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary } }
        #expect(try objects(onServer) == objects(try exported(store)), "\(onServer)")
        let lines = onServer.split(separator: "\n")
        #expect(lines.count == 23)
        #expect(lines.contains { $0.contains("HKQuantityTypeIdentifierHeartRate") && $0.contains("HKMetadataKeyHeartRateMotionContext") })
        _ = serve.stop(); _ = serve2.stop()
    }

    @Test func stepsGoToTheStepsAPIOnce() throws {
        let dir = try makeTemporaryDirectory()
        let (store, _) = try makeStore(heartRates: 10, in: dir)
        let serve = try ServeProcess(["--faults", "503"], directory: dir)
        let upload = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", "steps"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(upload.stderr.contains("uploaded 1 metric in"))   // the sample's one StepCount
        #expect(try serve.request("GET", "/steps").object["storedCount"] as? Int == 1)
        _ = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", "steps"])
        #expect(try serve.request("GET", "/steps").object["storedCount"] as? Int == 1)
        // In the patient's store as in the one it came from.
        let steps = { (path: String) in String(decoding: try CLI.run(["export", "--store", path, "--types", "stepCount", "--format", "csv"]).stdout, as: UTF8.self) }
        #expect(try steps(serve.storePath()).contains("2024-11-02T12:00:00Z"))
        #expect(try steps(serve.storePath()).split(whereSeparator: \.isNewline).count == 2)   // CSV's header, and the sample
        _ = serve.stop()
    }

    /// One rule for the steps target: it sends the token when one is given and needs none
    /// otherwise (the HealthStepsSync API takes none), and `serve` with a token wants it on /steps
    /// like on every data route. Without it: one 401, exit 77, and a sentence that says how to give it.
    @Test func stepsSendTheTokenWhenGivenAndServeWithATokenWantsIt() throws {
        let dir = try makeTemporaryDirectory()
        let (store, _) = try makeStore(heartRates: 0, in: dir)
        let tokenFile = dir.appendingPathComponent("token")
        try Data("steps-token-0123456789abcdef\n".utf8).write(to: tokenFile)
        let serve = try ServeProcess(["--token-file", tokenFile.path], directory: dir)
        defer { _ = serve.stop() }
        let without = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", "steps"],
                                  environment: ["CLOUDSYNC_TOKEN": ""])
        #expect(without.status == 77, "\(without.stderr)")
        #expect(without.stderr.contains("the server wants a token and none was given (401"), "\(without.stderr)")
        #expect(without.stderr.contains("CLOUDSYNC_TOKEN") && without.stderr.contains("--token-file"), "\(without.stderr)")
        #expect(serve.log.components(separatedBy: "POST /steps 401").count - 1 == 1, "\(serve.log)")
        #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().targets.allSatisfy { $0.acknowledged == 0 })
        let with = try CLI.run(["upload", "--store", store, "--server", serve.url, "--target", "steps", "--token-file", tokenFile.path])
        #expect(with.status == 0 && with.stderr.contains("uploaded 1 metric in"), "\(with.stderr)")
        #expect(try serve.request("GET", "/steps", token: "steps-token-0123456789abcdef").object["storedCount"] as? Int == 1)
        // The words say the same: upload's help no longer says steps never sends a token.
        func words(_ command: String) throws -> String {   // the help as one line: it wraps to the terminal
            String(decoding: try CLI.run([command, "--help"]).stdout, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let help = try words("upload")
        #expect(!help.contains("never sends") && help.contains("steps sends the token when one is given"), "\(help)")
        let serveHelp = try words("serve")
        #expect(serveHelp.contains("/steps included"), "\(serveHelp)")
    }

    @Test func aWrongTokenFailsFastWithoutARetryStorm() throws {
        let dir = try makeTemporaryDirectory()
        let (store, _) = try makeStore(heartRates: 0, in: dir)
        let tokenFile = dir.appendingPathComponent("token")
        try Data("right-token\n".utf8).write(to: tokenFile)
        let serve = try ServeProcess(["--token-file", tokenFile.path], directory: dir)
        let upload = try CLI.run(["upload", "--store", store, "--server", "\(serve.url)/api/v1"], environment: ["CLOUDSYNC_TOKEN": "wrong-token"])
        #expect(upload.status == 77)
        #expect(upload.stderr.contains("the server refused the token (401"))
        #expect(!upload.stderr.contains("wrong-token"))
        let attempts = serve.log.components(separatedBy: "POST /api/v1/wearables/import/apple-health 401").count - 1
        #expect(attempts == 1)
        #expect(!serve.log.contains("wrong-token") && !serve.log.contains("right-token"))
        #expect(try pending(store) == 20)   // nothing acknowledged: every metric of the types CloudCare keeps
        let right = try CLI.run(["upload", "--store", store, "--server", "\(serve.url)/api/v1", "--token-file", tokenFile.path])
        #expect(right.status == 0)
        _ = serve.stop()
    }
}

@Suite(.serialized) struct ServeTests {
    nonisolated(unsafe) static let metric: [String: Any] = ["type": "HKQuantityTypeIdentifierHeartRate", "startDate": "2025-11-12T06:52:56Z",
                                        "endDate": "2025-11-12T06:52:56Z", "value": 79, "unit": "bpm", "sourceApp": "Watch",
                                        "metadata": ["device": "Apple Watch"]]
    static func envelope(_ metrics: [[String: Any]]) -> [String: Any] {
        ["userId": "U", "deviceId": "D", "exportTimestamp": "2025-11-13T06:49:53Z",
         "dataRange": ["startDate": "2025-11-12T06:49:53Z", "endDate": "2025-11-13T06:49:53Z"], "metrics": metrics]
    }

    @Test func validatesLikeTheRealBackend() throws {
        let dir = try makeTemporaryDirectory()
        try Data("t0k3n".utf8).write(to: dir.appendingPathComponent("token"))
        let serve = try ServeProcess(["--token-file", dir.appendingPathComponent("token").path, "--max-body-size", "4096"], directory: dir)
        let path = "/api/v1/wearables/import/apple-health"
        #expect(try serve.request("POST", path, json: Self.envelope([Self.metric])).status == 401)
        #expect(try serve.request("GET", "/health").status == 200)
        var bad = Self.metric
        bad["metadata"] = NSNull()
        let invalid = try serve.request("POST", path, json: Self.envelope([Self.metric, bad]), token: "t0k3n")
        #expect(invalid.status == 422)
        let errors = try #require(invalid.object["errors"] as? [[String: String]])
        #expect(errors.first?["field"] == "metrics[1].metadata")
        let ok = try serve.request("POST", path, json: Self.envelope([Self.metric]), token: "t0k3n")
        #expect(ok.status == 201)
        #expect(ok.object["stored_count"] as? Int == 1)
        // The same sample from a second source ending in the same second is kept (the real server drops it).
        var otherSource = Self.metric
        otherSource["sourceApp"] = "Phone"
        let again = try serve.request("POST", path, json: Self.envelope([Self.metric, otherSource]), token: "t0k3n")
        #expect(again.object["stored_count"] as? Int == 1)
        #expect(again.object["duplicate_count"] as? Int == 1)
        #expect(try serve.request("POST", path, body: Data(repeating: 0x20, count: 10_000), token: "t0k3n").status == 413)
        #expect(try serve.request("POST", "/steps", json: ["samples": [["uuid": "x"]]], token: "t0k3n").status == 400)
        let expired = ["userId": "U", "deviceId": "D", "deviceName": "Mac", "deviceType": "apple_watch",
                       "generatedAt": "2020-01-01T00:00:00.000Z", "expiresAt": "2020-01-01T00:15:00.000Z",
                       "pairingCode": "ABCD-1234", "androidUserId": "A"]
        #expect(try serve.request("POST", "/api/v1/wearables/devices/pair", json: expired, token: "t0k3n").status == 400)
        #expect(serve.stop() == 0)
    }
}

@Suite struct PairCommandTests {
    /// A store made by importing the sample: pairing reads its identity and never makes one.
    func importedStore(in dir: URL) throws -> String {
        let store = dir.appendingPathComponent("s.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        return store
    }

    @Test func printsThePairingObjectAndItsQRCode() throws {
        let dir = try makeTemporaryDirectory()
        let store = try importedStore(in: dir)
        let png = dir.appendingPathComponent("qr.png").path
        let result = try CLI.run(["pair", "--store", store, "--device-name", "Test Mac", "--png", png])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: String])
        #expect(Set(object.keys) == ["userId", "deviceId", "deviceName", "deviceType", "generatedAt", "expiresAt", "pairingCode"])
        #expect(object["deviceType"] == "apple_watch")
        #expect(try #/^[A-Z0-9]{4}-[A-Z0-9]{4}$/#.wholeMatch(in: object["pairingCode"]!) != nil)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let generated = try #require(formatter.date(from: object["generatedAt"]!)), expires = try #require(formatter.date(from: object["expiresAt"]!))
        #expect(expires.timeIntervalSince(generated) == 900)
        let status = try StatusQuery(StagingStore(path: store, access: .read)).status()
        #expect(object["userId"] == status.userId && object["deviceId"] == status.deviceId)
        #expect(result.stderr.contains("▀") || result.stderr.contains("▄"))
        let image = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(image.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // Two codes are never the same.
        let second = try JSONSerialization.jsonObject(with: try CLI.run(["pair", "--store", store, "--no-qr"]).stdout) as? [String: String]
        #expect(second?["pairingCode"] != object["pairingCode"])
    }

    /// The PNG decoded by an independent reader (Debian's zbar-tools, installed by the setup scripts)
    /// holds the same pairing object as standard output.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"), "zbarimg is not installed: QR decoding skipped"))
    func theQRCodeImageDecodesToThePairingObject() throws {
        let dir = try makeTemporaryDirectory()
        let png = dir.appendingPathComponent("qr.png").path
        let result = try CLI.run(["pair", "--store", try importedStore(in: dir), "--png", png, "--no-qr"])
        #expect(result.status == 0)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: String]
        let decoded = try CLI.run(["-q", "--raw", png], tool: "/usr/bin/zbarimg")
        #expect(try JSONSerialization.jsonObject(with: decoded.stdout) as? [String: String] == object)
    }

    @Test func postsThePairingRequest() throws {
        let dir = try makeTemporaryDirectory()
        let serve = try ServeProcess([], directory: dir)
        let result = try CLI.run(["pair", "--store", try importedStore(in: dir), "--no-qr",
                                  "--server", "\(serve.url)/api/v1", "--android-user-id", "android-42"])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(answer["android_user_id"] as? String == "android-42")
        #expect(try serve.count("SELECT count(*) FROM pairing") == 1)
        _ = serve.stop()
    }
}
