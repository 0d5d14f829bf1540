import CloudSyncModel
@testable import CloudSyncStore
@testable import CloudSyncUpload
import CloudSyncExport
import Foundation
import Testing

/// Each upload contract in process: the bytes of its body as the wire contract
/// (`../shared/spec/wire-contracts.md`) has them, its typed reply, what its receipt says, and the
/// scope of types and window it sends. The uploads themselves, through retries and faults against
/// a real `serve`, are tested through the binary in CloudSyncCLITests.
@Suite struct UploadContractTests {
    /// A stored metric as a pending batch holds it (its own bytes).
    struct Metric {
        var type = "HKQuantityTypeIdentifierStepCount", start: Int64 = 1_714_464_000, value: Double = 12, unit = "count"
        var source = "Ana's \"Watch\"", device = "Apple Watch", metadata = #"{"HKWasUserEntered":"0"}"#, category: String?
    }

    static func metric(_ type: String = "HKQuantityTypeIdentifierStepCount", start: Int64 = 1_714_464_000, value: Double = 12,
                       unit: String = "count", category: String? = nil) -> Metric {
        Metric(type: type, start: start, value: value, unit: unit, category: category)
    }

    static func batch(_ metrics: [Metric]) -> PendingBatch {
        var batch = PendingBatch()
        for (index, metric) in metrics.enumerated() {
            var mapped = MappedMetric()
            mapped.startDate = metric.start
            mapped.endDate = metric.start + 60
            mapped.value = metric.value
            let texts = [metric.type, metric.unit, metric.source, metric.device, metric.metadata, metric.category ?? ""].map { Array($0.utf8) }
            texts[0].withUnsafeBufferPointer { mapped.type = $0
                texts[1].withUnsafeBufferPointer { mapped.unit = $0
                    texts[2].withUnsafeBufferPointer { mapped.sourceApp = $0
                        texts[3].withUnsafeBufferPointer { mapped.device = $0
                            texts[4].withUnsafeBufferPointer { mapped.metadataJSON = $0
                                texts[5].withUnsafeBufferPointer { category in
                                    mapped.categoryValue = metric.category == nil ? nil : category
                                    batch.append(id: Int64(index + 1), mapped)
                                }
                            }
                        }
                    }
                }
            }
        }
        return batch
    }

    /// The stable UUIDs of a batch's metrics, as the Flō body carries them.
    static func uuids(_ metrics: [Metric]) throws -> [String] {
        let body = try Self.body(FloUpload.self, metrics)
        return try #require(body["samples"] as? [[String: Any]]).compactMap { $0["uuid"] as? String }
    }

    static let context = BatchContext(identity: CloudCareIdentity(userId: "user \"1\"", deviceId: "device-1"),
                                      range: PendingSummary(count: 2, firstStart: 1_714_464_000, lastEnd: 1_714_550_400))

    static func body<C: UploadContract>(_ contract: C.Type, _ metrics: [Metric]) throws -> [String: Any] {
        var out = CloudSyncModel.ByteBuffer(capacity: 1024)
        contract.appendBody(batch(metrics), context, to: &out)
        let bytes = out.withBytes { Data($0.string.utf8) }
        return try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
    }

    /// The envelope's ids are escaped like every string, its range is the whole upload's, and its
    /// metrics are what `convert` writes.
    @Test func cloudCaresEnvelopeIsOneHealthDataExport() throws {
        let envelope = try Self.body(CloudCareUpload.self, [Self.metric(), Self.metric(start: 1_714_550_340)])
        #expect(envelope["userId"] as? String == "user \"1\"" && envelope["deviceId"] as? String == "device-1")
        let range = try #require(envelope["dataRange"] as? [String: String])
        #expect(range == ["startDate": "2024-04-30T08:00:00Z", "endDate": "2024-05-01T08:00:00Z"])
        let metrics = try #require(envelope["metrics"] as? [[String: Any]])
        #expect(metrics.count == 2)
        #expect(metrics[0]["type"] as? String == "HKQuantityTypeIdentifierStepCount" && metrics[0]["sourceApp"] as? String == "Ana's \"Watch\"")
        #expect(metrics[0]["startDate"] as? String == "2024-04-30T08:00:00Z" && metrics[0]["value"] as? Double == 12)
        #expect((metrics[0]["metadata"] as? [String: String]) == ["HKWasUserEntered": "0"])
    }

    /// Flō's samples: dates with milliseconds, a uuid that is the same on every run and differs
    /// for a category sample of another value over the same span.
    @Test func floSamplesCarryAStableUUID() throws {
        let body = try Self.body(FloUpload.self, [Self.metric()])
        let sample = try #require((body["samples"] as? [[String: Any]])?.first)
        #expect(Set(sample.keys) == ["dataType", "deviceManufacturer", "deviceModel", "deviceName", "endDate", "metadata",
                                     "sourceBundleId", "sourceName", "startDate", "unit", "uuid", "value"])
        #expect(sample["startDate"] as? String == "2024-04-30T08:00:00.000Z" && sample["endDate"] as? String == "2024-04-30T08:01:00.000Z")
        #expect(sample["deviceManufacturer"] as? String == "Apple Inc.")
        // Version 5 of `type|start|end|source|valueBits|unit[|category]` in our namespace, computed
        // independently (Python's hashlib and uuid): what every earlier upload sent for this metric.
        #expect(sample["uuid"] as? String == "E1A082FC-4271-55BA-9187-FA91C8FBCA42")
        #expect(try Self.uuids([Self.metric(), Self.metric()]) == ["E1A082FC-4271-55BA-9187-FA91C8FBCA42", "E1A082FC-4271-55BA-9187-FA91C8FBCA42"])
        let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
        let nights = try Self.uuids([Self.metric(sleep, category: "HKCategoryValueSleepAnalysisInBed"),
                                     Self.metric(sleep, category: "HKCategoryValueSleepAnalysisAsleepCore")])
        #expect(nights[0] == "FAA44A97-5D68-537F-81A1-CAC8327F02BF" && nights[0] != nights[1])
    }

    @Test func stepsAreWholeCounts() throws {
        let body = try Self.body(StepsUpload.self, [Self.metric(value: 12.6)])
        let sample = try #require((body["samples"] as? [[String: Any]])?.first)
        #expect(sample["count"] as? Int == 13)
        #expect(Set(sample.keys) == ["count", "endDate", "sourceBundleId", "sourceDeviceName", "startDate", "uuid"])
    }

    /// A reply decodes as its contract's type or is no acknowledgement at all.
    @Test func repliesDecodeAsTheirContractSaysOrNotAtAll() throws {
        let decoder = JSONDecoder()
        let cloudCare = Data(#"{"message":"ok","device_id":"d","device_type":"apple_watch","total_metrics":2,"stored_count":1,"duplicate_count":1,"error_count":0,"was_duplicate":false}"#.utf8)
        #expect(try decoder.decode(CloudCareUpload.Reply.self, from: cloudCare).storedCount == 1)
        #expect(try decoder.decode(FloUpload.Reply.self, from: Data(#"{"inserted":3,"duplicates":0,"total":3}"#.utf8)).inserted == 3)
        #expect(try decoder.decode(StepsUpload.Reply.self, from: Data(#"{"saved":5,"message":"Success"}"#.utf8)).saved == 5)
        #expect((try? decoder.decode(CloudCareUpload.Reply.self, from: Data(#"{"ok":true}"#.utf8))) == nil)
        #expect((try? decoder.decode(StepsUpload.Reply.self, from: Data("<html>hotel wifi</html>".utf8))) == nil)
    }

    /// CloudCare's `total_metrics` counts only what it took: the shortfall is put on the types it
    /// does not take when they account for it, else said to be unexplained.
    @Test func cloudCaresShortfallIsPutOnTheTypesItDoesNotTake() {
        let batch = Self.batch([Self.metric(), Self.metric("HKQuantityTypeIdentifierBasalEnergyBurned", unit: "kcal"),
                                Self.metric("HKQuantityTypeIdentifierBasalEnergyBurned", unit: "kcal")])
        let reply = CloudCareUpload.Reply(totalMetrics: 1, storedCount: 1, duplicateCount: 0)
        #expect(CloudCareUpload.receipt(reply, for: batch).notTaken == ["HKQuantityTypeIdentifierBasalEnergyBurned": 2])
        let odd = CloudCareUpload.Reply(totalMetrics: 0, storedCount: 0, duplicateCount: 0)
        #expect(CloudCareUpload.receipt(odd, for: batch).notTaken == [Uploader.unexplained: 3])
        let all = CloudCareUpload.Reply(totalMetrics: 3, storedCount: 2, duplicateCount: 1)
        #expect(CloudCareUpload.receipt(all, for: batch) == BatchReceipt(stored: 2, duplicates: 1, notTaken: [:]))
    }

    /// CloudCare's 403 is a device not paired; a 404 in FastAPI's own words is a wrong URL (the common rule).
    @Test func cloudCareReadsItsOwnFailures() {
        func said(_ body: String) -> ServerSaid { HTTPTransport.said(Array(body.utf8)) }
        #expect(CloudCareUpload.failure(status: 403, said: said(#"{"detail":"Device not paired"}"#), url: "u")?.description.contains("not paired") == true)
        #expect(CloudCareUpload.failure(status: 404, said: said(#"{"detail":"Not Found"}"#), url: "u") == nil)
        #expect(CloudCareUpload.failure(status: 404, said: said(#"{"detail":"Paired patient not found"}"#), url: "u")?.description.contains("patient") == true)
        // A 404 that is not CloudCare speaking (an empty body, a web server's page) is no such endpoint.
        #expect(CloudCareUpload.failure(status: 404, said: said(""), url: "u") == nil)
        #expect(CloudCareUpload.failure(status: 404, said: said("<html><body>404 Not Found</body></html>"), url: "u") == nil)
        #expect(FloUpload.failure(status: 403, said: said(""), url: "u") == nil)
    }

    /// What each target is sent: CloudCare its types unless told otherwise, steps only steps
    /// whatever is asked, Flō from its window on.
    @Test func eachScopeNarrowsToItsTypesAndWindow() {
        let cloudCare = UploadScope(contract: CloudCareUpload.self, userFilter: .all, windowStart: nil, allTypes: false)
        #expect(cloudCare.filter.types == CloudCareContract.takenTypes)
        #expect(UploadScope(contract: CloudCareUpload.self, userFilter: .all, windowStart: nil, allTypes: true).filter.types == nil)
        #expect(UploadScope(contract: StepsUpload.self, userFilter: .all, windowStart: nil, allTypes: true).filter.types == ["stepCount"])
        let flo = UploadScope(contract: FloUpload.self, userFilter: .all, windowStart: "2021-12-07T00:00:00.000Z", allTypes: false)
        #expect(flo.filter.types == nil && flo.filter.since == 1_638_835_200 && flo.windowStart == "2021-12-07T00:00:00.000Z")
        #expect(UploadTarget.allCases.map { $0.contract.displayName } == ["CloudCare", "Flō", "steps API"])
    }
}
