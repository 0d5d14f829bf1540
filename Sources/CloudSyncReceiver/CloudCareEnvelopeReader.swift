import CloudSyncHealthAutoExport
import CloudSyncModel

/// The CloudCare envelope read from its bytes by the app's JSON reader (`JSONCursor`), not by
/// `JSONDecoder`, which took 51% of `serve`'s CPU on an upload (perf: 166,056 metrics into `serve`
/// on SQLite). The answers are the decoder's: a body that is not JSON is "not valid JSON"; then,
/// field by field in the envelope's order, a missing field, a null and a value of the wrong type,
/// each named by its path (`metrics[1].metadata`); members the envelope does not name are passed.
/// The metrics are read straight into bytes (`ReceivedMetrics`), their dates parsed as they are
/// read: a `MetricBody` a metric, then a `HealthMetric`, then bytes again for the store, was
/// most of the reading (allocations, reference counting, hashing: perf, 166,056 metrics).
enum CloudCareEnvelopeReader {
    /// The envelope as read. The body's fields were all there and of their types; a date that does not
    /// read is said by the caller, after every field (the decoder's order: its fields, then the dates).
    struct Envelope {
        var userId: String, deviceId: String, exportTimestamp: String
        var dataRange: HealthDataExportBody.DataRange
        /// The metrics the caller keeps (`keeps`), mapped.
        var metrics: ReceivedMetrics
        /// The first kept metric whose date does not read: its index in the body, and which date.
        var unreadableDate: (index: Int, problem: DateProblem)?
    }

    /// `keeps`: whether a metric of this type is kept (the real backend's list of types); all when nil.
    static func read(_ bytes: ByteText, keeps: ((ByteText) -> Bool)? = nil) -> Result<Envelope, FieldProblem> {
        let arena = TextArena()
        let notJSON = FieldProblem(field: "body", message: "not valid JSON", type: "value_error.jsondecode")
        do {
            // The envelope's members are checked as they are captured, to the body's end, before a
            // field is read: the decoder's order (it parses the body whole first), in one pass. A
            // pass of its own before it was a quarter of the reading's scans of every byte.
            var cursor = JSONCursor(bytes: bytes, input: "the request", arena: arena)
            let envelope: Members
            // The metrics read as the envelope is passed, when they read without a problem: passing
            // them to capture their bytes, then reading those, was a quarter of the reading (perf). On
            // any problem their bytes are captured instead, and read below to say it in its order.
            var readInPassing: MetricsRead?
            do {
                envelope = try Members(&cursor, at: "", names: ["userId", "deviceId", "exportTimestamp", "dataRange", "metrics"],
                                       depth: 1) { index, cursor in
                    guard index == 4 else { return false }
                    readInPassing = try? MetricsRead.array(&cursor, keeps: keeps, depth: 2, arena)
                    return readInPassing != nil
                }
                try cursor.expectEnd()
            } catch {
                // Not an object, or not JSON: the whole body says which the decoder would have said.
                var check = JSONCursor(bytes: bytes, input: "the request", arena: arena)
                guard (try? check.skipValue()) != nil, (try? check.expectEnd()) != nil else { return .failure(notJSON) }
                throw error
            }
            let userId = try envelope.string(0, arena), deviceId = try envelope.string(1, arena)
            let exportTimestamp = try envelope.string(2, arena)
            let range = try Members(envelope.cursor(3, arena), at: "dataRange", names: ["startDate", "endDate"])
            let dataRange = HealthDataExportBody.DataRange(startDate: try range.string(0, arena), endDate: try range.string(1, arena))
            let metrics: MetricsRead
            if let readInPassing {
                metrics = readInPassing
            } else {
                var list = try envelope.cursor(4, arena, expecting: .array, "an array")
                metrics = try MetricsRead.array(&list, keeps: keeps, depth: 0, arena)
            }
            return .success(Envelope(userId: userId, deviceId: deviceId, exportTimestamp: exportTimestamp, dataRange: dataRange,
                                     metrics: metrics.received, unreadableDate: metrics.unreadableDate))
        } catch let problem as FieldProblem {
            return .failure(problem)
        } catch {
            return .failure(FieldProblem(field: "body", message: "\(error)", type: "value_error"))
        }
    }

    /// The metrics as they are read, and what the reading keeps from one metric to the next.
    private struct MetricsRead {
        var received: ReceivedMetrics
        var unreadableDate: (index: Int, problem: DateProblem)?
        let keeps: ((ByteText) -> Bool)?
        /// How deep a metric is in the body, for the nesting limit of what is passed unread.
        let depth: Int
        /// A metric's metadata as written, kept between metrics.
        var metadata: [ReceivedMetrics.Pair] = []

        private init(keeps: ((ByteText) -> Bool)?, depth: Int) {
            received = ReceivedMetrics()
            self.keeps = keeps
            self.depth = depth
        }

        /// The array of metrics that starts at `cursor`, `depth` levels deep in the body.
        static func array(_ cursor: inout JSONCursor, keeps: ((ByteText) -> Bool)?, depth: Int, _ arena: TextArena) throws -> MetricsRead {
            var metrics = MetricsRead(keeps: keeps, depth: depth)
            try cursor.array { cursor, index in try metrics.read(&cursor, at: index, arena) }
            return metrics
        }

        /// A metric read in one pass over its members, each value read as it is passed; its problems
        /// are then said in `MetricBody`'s order, as `Members` says them. Capturing its members first,
        /// then reading each again, was a third of the envelope's reading (perf, 166,056 metrics).
        mutating func read(_ cursor: inout JSONCursor, at index: Int, _ arena: TextArena) throws {
            switch try cursor.peekKind() {
            case .object: break
            case .null: throw FieldProblem(null: "metrics[\(index)]")
            default: throw FieldProblem(field: "metrics[\(index)]", mismatch: "an object")
            }
            var type = Member<ByteText>.missing, start = Member<ByteText>.missing, end = Member<ByteText>.missing
            var unit = Member<ByteText>.missing, source = Member<ByteText>.missing
            var value = Member<Double>.missing, metadata = Member<Void>.missing
            var pairs = self.metadata
            self.metadata = []   // held once, so that it is filled in place
            defer { self.metadata = pairs }
            cursor.tracksKeys = false
            // A name given twice: its last value counts, as in `Members`.
            try cursor.object { cursor, key in
                if key.equals("type") { type = try .string(&cursor) }
                else if key.equals("startDate") { start = try .string(&cursor) }
                else if key.equals("endDate") { end = try .string(&cursor) }
                else if key.equals("value") { value = try .number(&cursor) }
                else if key.equals("unit") { unit = try .string(&cursor) }
                else if key.equals("sourceApp") { source = try .string(&cursor) }
                else if key.equals("metadata") { metadata = try .object(&cursor, into: &pairs, arena, depth: depth + 2) }
                else { try cursor.skipValue(depth: depth + 1) }
            }
            let at = { (name: String) in "metrics[\(index)].\(name)" }
            let typeText = try type.value(at("type"), "a string"), startText = try start.value(at("startDate"), "a string")
            let endText = try end.value(at("endDate"), "a string"), number = try value.value(at("value"), "a number")
            let unitText = try unit.value(at("unit"), "a string"), sourceText = try source.value(at("sourceApp"), "a string")
            try metadata.value(at("metadata"), "an object")
            if let keeps, !keeps(typeText) { return }
            guard let startDate = ExportDateParser.isoEpochSeconds(startText) else { return unreadable(index, .start) }
            guard let endDate = ExportDateParser.isoEpochSeconds(endText) else { return unreadable(index, .end) }
            received.append(type: typeText, start: startDate, end: endDate, value: number, unit: unitText, source: sourceText,
                            metadata: pairs)
        }

        private mutating func unreadable(_ index: Int, _ problem: DateProblem) {
            if unreadableDate == nil { unreadableDate = (index, problem) }
        }
    }

    /// One member of a metric as it was passed: its value, or why it has none.
    fileprivate enum Member<Value> {
        case missing, null, mismatch, read(Value)

        /// The value, or the problem `Members` says for it at `field`.
        func value(_ field: @autoclosure () -> String, _ what: String) throws -> Value {
            switch self {
            case .read(let value): return value
            case .missing: throw FieldProblem(missing: field())
            case .null: throw FieldProblem(null: field())
            case .mismatch: throw FieldProblem(field: field(), mismatch: what)
            }
        }

        /// A value of `kind` read by `read`; null, or another kind (checked and passed), said as such.
        static func reading(_ cursor: inout JSONCursor, _ kind: JSONCursor.ValueKind,
                            _ read: (inout JSONCursor) throws -> Value?) throws -> Member {
            let found = try cursor.peekKind()
            if found == kind { return try read(&cursor).map { .read($0) } ?? .mismatch }
            if found == .null {
                _ = try cursor.null()
                return .null
            }
            try cursor.skipValue()
            return .mismatch
        }
    }

    /// Any value (the body was checked: it is well formed, and nested at most 64 levels).
    fileprivate static func jsonValue(_ cursor: inout JSONCursor) throws -> JSONValue {
        switch try cursor.peekKind() {
        case .string: return .string(try cursor.string().string)
        case .number: return .number(try cursor.number())
        case .bool: return .bool(try cursor.bool())
        case .null:
            _ = try cursor.null()
            return .null
        case .array:
            var values: [JSONValue] = []
            try cursor.array { cursor, _ in values.append(try jsonValue(&cursor)) }
            return .array(values)
        case .object:
            var members: [String: JSONValue] = [:]
            try cursor.object { cursor, key in members[key.string] = try jsonValue(&cursor) }
            return .object(members)
        }
    }

    /// The members of an object that the caller names, as the bytes of their values, read in the
    /// order the caller asks for them (others are passed). Not a dictionary: one per metric, with a
    /// `String` per key, was most of the reading's time.
    private struct Members {
        let field: String
        private let names: [StaticString]
        private var values: [ByteText?]

        /// `depth`: how deep the object's values are in the body, where they are checked as they are
        /// passed (the body's members: 1); values read from captured bytes were checked then.
        /// `reads`: called with each named member's index, the cursor on its value, before its bytes are
        /// captured; true when it read the value whole (its bytes are then not kept). On false the
        /// cursor is put back where the value starts.
        init(_ cursor: inout JSONCursor, at field: String, names: [StaticString], depth: Int = 0,
             reads: (Int, inout JSONCursor) -> Bool = { _, _ in false }) throws {
            self.field = field
            self.names = names
            guard try cursor.peekKind() == .object else { throw FieldProblem(field: field.isEmpty ? "body" : field, mismatch: "an object") }
            var values = [ByteText?](repeating: nil, count: names.count)
            cursor.tracksKeys = false
            try cursor.object { cursor, key in
                if let index = names.firstIndex(where: { key.equals($0) }) {
                    let start = cursor
                    if reads(index, &cursor) {
                        values[index] = .empty
                        return
                    }
                    cursor = start
                    values[index] = try cursor.captureValue(depth: depth)
                } else {
                    try cursor.skipValue(depth: depth)
                }
            }
            self.values = values
        }

        init(_ cursor: JSONCursor, at field: String, names: [StaticString]) throws {
            var cursor = cursor
            try self.init(&cursor, at: field, names: names)
        }

        func path(_ index: Int) -> String {
            let key = names[index].description
            return field.isEmpty ? key : "\(field).\(key)"
        }

        /// A cursor on the value of `names[index]`, which must be there, not null, and of `kind` when given.
        func cursor(_ index: Int, _ arena: TextArena, expecting kind: JSONCursor.ValueKind? = nil, _ what: String = "") throws -> JSONCursor {
            guard let bytes = values[index] else { throw FieldProblem(missing: path(index)) }
            var cursor = JSONCursor(bytes: bytes, input: "the request", arena: arena)
            cursor.tracksKeys = false
            let found = try cursor.peekKind()
            if found == .null {
                throw FieldProblem(null: path(index))
            }
            if let kind, found != kind { throw FieldProblem(field: path(index), mismatch: what) }
            return cursor
        }

        func string(_ index: Int, _ arena: TextArena) throws -> String {
            var value = try cursor(index, arena, expecting: .string, "a string")
            return try value.string().string
        }
    }
}

extension FieldProblem {
    init(field: String, mismatch what: String) {
        self.init(field: field, message: "must be \(what)", type: "type_error")
    }
}

private extension CloudCareEnvelopeReader.Member where Value == ByteText {
    static func string(_ cursor: inout JSONCursor) throws -> Self { try reading(&cursor, .string) { try $0.string() } }
}

private extension CloudCareEnvelopeReader.Member where Value == Double {
    /// A number that is not a finite `Double` is said as not a number.
    static func number(_ cursor: inout JSONCursor) throws -> Self {
        try reading(&cursor, .number) { cursor in try? cursor.number() }
    }
}

private extension CloudCareEnvelopeReader.Member where Value == Void {
    /// Metadata into `pairs`, each value as the store keeps it: a string as it is, any other value
    /// as its JSON (`JSONValue.metadataText`). A metadata given twice: its last. `depth`: how deep
    /// its values are in the body; one that is not a string is checked (nesting included) before it
    /// is read, which recurses.
    static func object(_ cursor: inout JSONCursor, into pairs: inout [ReceivedMetrics.Pair], _ arena: TextArena,
                       depth: Int) throws -> Self {
        try reading(&cursor, .object) { cursor in
            pairs.removeAll(keepingCapacity: true)
            try cursor.object { cursor, key in
                if try cursor.peekKind() == .string {
                    pairs.append((key, try cursor.string()))
                } else {
                    var value = JSONCursor(bytes: try cursor.captureValue(depth: depth), input: "the request", arena: arena)
                    pairs.append((key, arena.copy(try CloudCareEnvelopeReader.jsonValue(&value).metadataText)))
                }
            }
            return ()
        }
    }
}
