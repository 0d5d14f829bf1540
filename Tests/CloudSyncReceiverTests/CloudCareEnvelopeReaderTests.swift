@testable import CloudSyncReceiver
import CloudSyncModel
import Foundation
import Testing

/// The CloudCare envelope read from its bytes gives what `JSONDecoder` gave for the same body (the
/// decoder is still the receiver's for the other routes): the same envelope and stored metadata for
/// a good body, and the same field and kind of problem for a bad one.
@Suite struct CloudCareEnvelopeReaderTests {
    static let good = ReceiverRoutesTests.envelope

    static func metric(_ members: String) -> String {
        """
        {"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[
         {"type":"steps","startDate":"2024-05-01T08:00:00Z","endDate":"2024-05-01T08:01:00.000Z","sourceApp":"Watch","value":1,"unit":"count","metadata":{}},
         {\(members)}]}
        """
    }

    static let full = #""type":"steps","startDate":"2024-05-01T08:00:00Z","endDate":"2024-05-01T08:01:00.000Z","sourceApp":"Watch","value":2,"unit":"count","metadata":{}"#

    static let bodies: [String] = [
        good,
        // Members the envelope does not name, escapes, nested metadata of every kind, numbers as JSON writes them.
        metric(#""extra":[1,{"x":null}],"type":"st\u0065ps \"q\"","startDate":"2024-05-01T08:00:00Z","endDate":"2024-05-01T08:01:00.000Z","sourceApp":"Wätch\n","value":-1.5e-3,"unit":"count","#
               + #""metadata":{"b":[1,2.5,"x",true,null,{"c":{}}],"a":"1","HKWasUserEntered":0,"big":12345678901234567890,"neg":-0.0}"#),
        metric(full.replacingOccurrences(of: #""value":2,"#, with: "")),                          // missing
        metric(full.replacingOccurrences(of: #""value":2"#, with: #""value":null"#)),              // null
        metric(full.replacingOccurrences(of: #""value":2"#, with: #""value":"2""#)),               // wrong type
        metric(full.replacingOccurrences(of: #""unit":"count""#, with: #""unit":3"#)),
        metric(full.replacingOccurrences(of: #""metadata":{}"#, with: #""metadata":null"#)),
        metric(full.replacingOccurrences(of: #","metadata":{}"#, with: "")),
        metric(full.replacingOccurrences(of: #""type":"steps","#, with: "") .replacingOccurrences(of: #""value":2"#, with: #""value":"x""#)),
        // Read in one pass, said in the envelope's order: a later member's problem after an earlier one's.
        metric(full.replacingOccurrences(of: #""value":2,"#, with: "").replacingOccurrences(of: #""type":"steps""#, with: #""type":null"#)),
        metric(full.replacingOccurrences(of: #""metadata":{}"#, with: #""metadata":[{"a":1}]"#)),
        metric(full.replacingOccurrences(of: #""sourceApp":"Watch""#, with: #""sourceApp":{"a":[1,{"b":null}]}"#)),
        #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[null]}"#,
        #"{"deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[]}"#,
        #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a"},"metrics":[]}"#,
        #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":{}}"#,
        #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[3]}"#,
        #"{"userId":7,"deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[]}"#,
        #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[]} x"#,
        #"{"userId":"u","deviceId":"d","#,
        "[1, 2]",
        "[1, 2",
        "",
        // Dates that do not read, said after every field: the first such metric, by its index in the body.
        metric(full.replacingOccurrences(of: #""endDate":"2024-05-01T08:01:00.000Z""#, with: #""endDate":"yesterday""#)),
        metric(full.replacingOccurrences(of: #""startDate":"2024-05-01T08:00:00Z""#, with: #""startDate":"2024-05-01 08:00""#)),
        // A problem in the metrics and a missing field before them: the field is said first.
        #"{"deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[{"type":1}]}"#,
        // A field's problem before bytes that are no JSON: the body is not JSON, as the decoder says.
        #"{"userId":7,"deviceId":"d","metrics":[{"type":1}],"x":"no end}"#,
        #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"metrics":[{"type":1,"metadata":{"a":[}}]}"#,
    ]

    /// A sample's metadata in the order the store writes it, and its category.
    static func ordered(_ metrics: ReceivedMetrics, _ index: Int) -> [String] {
        var list: [ReceivedMetrics.Pair] = []
        return metrics.withMapped(index, &list) { mapped in
            mapped.metadata.map { "\($0.key.string)=\($0.value.string)" } + ["category=\(mapped.categoryValue?.string ?? "none")"]
        }
    }

    /// Metadata of every kind, as the store keeps it: strings as they are, other values as JSON, in
    /// the store's order (the device, then the keys by their bytes), the category from `categoryValue`.
    @Test func metadataIsKeptInTheStoresOrderAndForm() throws {
        let body = Self.metric(Self.full.replacingOccurrences(of: #""metadata":{}"#, with: #"""
            "metadata":{"b":[1,2.5,"x",true,null,{"c":{}}],"a":"1","HKWasUserEntered":0,"neg":-0.0,"categoryValue":"HKCategoryValueSleepAnalysisInBed","sourceVersion":"1\u00e9"}
            """#))
        let read = Array(body.utf8).withUnsafeBufferPointer { CloudCareEnvelopeReader.read($0) }
        guard case .success(let envelope) = read else { Issue.record("\(read)"); return }
        #expect(Self.ordered(envelope.metrics, 1) == [
            "device=Unknown", "sourceVersion=1é", "HKWasUserEntered=0", "a=1", #"b=[1,2.5,"x",true,null,{"c":{}}]"#,
            "categoryValue=HKCategoryValueSleepAnalysisInBed", "neg=0", "category=HKCategoryValueSleepAnalysisInBed",
        ])
    }

    /// With the real backend's list of types (`--drop-unknown-types`), a metric of another type is
    /// passed unread, and a date that does not read is named by its index in the body.
    @Test func keptTypesAndADateThatDoesNotReadByItsIndexInTheBody() {
        let body = Self.metric(Self.full.replacingOccurrences(of: #""type":"steps""#, with: #""type":"HKQuantityTypeIdentifierStepCount""#)
            .replacingOccurrences(of: #""endDate":"2024-05-01T08:01:00.000Z""#, with: #""endDate":"soon""#))
        let read = Array(body.utf8).withUnsafeBufferPointer { CloudCareEnvelopeReader.read($0, keeps: { $0.equals("HKQuantityTypeIdentifierStepCount") }) }
        guard case .success(let envelope) = read else { Issue.record("\(read)"); return }
        #expect(envelope.metrics.count == 0)
        #expect(envelope.unreadableDate?.index == 1 && envelope.unreadableDate?.problem == .end)
    }

    /// `metrics` given twice: the last counts (the reader's rule for any name; the decoder took the
    /// first), whether it is the first or the second that has a problem.
    @Test func metricsGivenTwiceCountAsTheLast() {
        let head = #"{"userId":"u","deviceId":"d","exportTimestamp":"t","dataRange":{"startDate":"a","endDate":"b"},"#
        let good = #"[{\#(Self.full.replacingOccurrences(of: #""metadata":{}"#, with: #""metadata":{"a":[1]}"#))}]"#
        let read = { (body: String) in Array(body.utf8).withUnsafeBufferPointer { CloudCareEnvelopeReader.read($0) } }
        guard case .success(let envelope) = read(head + #""metrics":[{"type":1}],"metrics":\#(good)}"#) else {
            Issue.record("the last metrics are good"); return
        }
        #expect(envelope.metrics.count == 1 && envelope.metrics.healthMetric(0).metadata == ["a": "[1]", "device": "Unknown"])
        guard case .failure(let problem) = read(head + #""metrics":\#(good),"metrics":[{"type":1}]}"#) else {
            Issue.record("the last metrics have a problem"); return
        }
        #expect(problem.field == "metrics[0].type" && problem.message == "must be a string")
    }

    /// Metadata nested deeper than the reader's limit is refused as JSON, not read by recursion.
    @Test func deepMetadataIsRefusedNotRecursedInto() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let body = Self.metric(Self.full.replacingOccurrences(of: #""metadata":{}"#, with: #""metadata":{"a":\#(deep)}"#))
        let read = Array(body.utf8).withUnsafeBufferPointer { CloudCareEnvelopeReader.read($0) }
        guard case .failure(let problem) = read else { Issue.record("read \(read)"); return }
        #expect(problem.field == "body" && problem.message == "not valid JSON")
    }

    @Test(arguments: bodies.indices)
    func theReaderAnswersAsTheDecoderDid(_ index: Int) {
        let body = Self.bodies[index]
        let decoded = BodyDecoding.decode(HealthDataExportBody.self, from: Data(body.utf8))
        let read = Array(body.utf8).withUnsafeBufferPointer { CloudCareEnvelopeReader.read($0) }
        switch (decoded, read) {
        case (.success(let expected), .success(let got)):
            #expect(got.userId == expected.userId && got.deviceId == expected.deviceId && got.exportTimestamp == expected.exportTimestamp)
            #expect(got.dataRange.startDate == expected.dataRange.startDate && got.dataRange.endDate == expected.dataRange.endDate)
            // The decoded metrics mapped as the receiver mapped them before it read bytes: `HealthMetric`s.
            let mapped = expected.metrics.map { $0.healthMetric() }
            let firstUnreadable = mapped.firstIndex { if case .failure = $0 { true } else { false } }
            #expect(got.unreadableDate?.index == firstUnreadable, "\(body)")
            if let firstUnreadable, case .failure(let problem) = mapped[firstUnreadable] { #expect(got.unreadableDate?.problem == problem) }
            let samples = ReceivedMetrics(mapped.compactMap { try? $0.get() })
            #expect(got.metrics.count == samples.count)
            for index in 0..<min(samples.count, got.metrics.count) {
                #expect(Self.ordered(got.metrics, index) == Self.ordered(samples, index), "\(body)")
                let read = got.metrics.healthMetric(index), sample = samples.healthMetric(index)
                #expect(read == sample, "\(body)")
                #expect(read.value.bitPattern == sample.value.bitPattern)
            }
        case (.failure(let expected), .failure(let got)):
            #expect(got.field == expected.field, "\(body)")
            #expect(got.type == expected.type, "\(body)")
            // The decoder names a Swift type where an object or array is wanted; the reader says which.
            if !expected.message.contains("of type") { #expect(got.message == expected.message, "\(body)") }
        default:
            Issue.record("decoder \(decoded), reader \(read) for \(body)")
        }
    }
}
