/// A `Correlation` of the export: the samples HealthKit took together (a systolic with its
/// diastolic blood pressure, the parts of a food entry), so that a reader can tell which goes with
/// which. The members are also emitted as metrics on their own, as the spec says.
public struct CorrelationRecord: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        /// The member's type identifier.
        public var type: String
        /// In the canonical unit, as the metric of the same sample has it.
        public var value: Double
        public var unit: String

        public init(type: String, value: Double, unit: String) {
            self.type = type
            self.value = value
            self.unit = unit
        }
    }

    /// The short name of the correlation type: `bloodPressure`, `food`.
    public var type: String
    public var startDate: Int64
    public var endDate: Int64
    public var sourceApp: String
    /// The correlation's own `MetadataEntry`s, and `device` and `sourceVersion` when written.
    public var metadata: [(key: String, value: String)]
    public var members: [Member]

    public init(type: String, startDate: Int64, endDate: Int64, sourceApp: String, metadata: [(key: String, value: String)],
                members: [Member]) {
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.sourceApp = sourceApp
        self.metadata = metadata
        self.members = members
    }

    public static func == (a: CorrelationRecord, b: CorrelationRecord) -> Bool {
        a.type == b.type && a.startDate == b.startDate && a.endDate == b.endDate && a.sourceApp == b.sourceApp
            && a.metadata.map(\.key) == b.metadata.map(\.key) && a.metadata.map(\.value) == b.metadata.map(\.value) && a.members == b.members
    }
}

/// The correlation kind: which systolic goes with which diastolic, which parts make a food entry.
/// JSON Lines: one correlation per line with its members; CSV: one row per member.
public enum CorrelationKind: RecordKind {
    public typealias Record = CorrelationRecord
    public static let name = "correlations"
    public static let noun = Noun("correlation")
    public static let part: Noun? = Noun("member")
    public static func parts(of correlation: CorrelationRecord) -> Int { correlation.members.count }
    public static func date(of correlation: CorrelationRecord) -> Int64? { correlation.startDate }

    /// `{"type","startDate","endDate","sourceApp","metadata":{…},"members":[{"type","value","unit"}]}`.
    public static func appendJSONLines(_ correlation: CorrelationRecord, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        RecordJSON.appendString(correlation.type, to: &out)
        out.append(",\"startDate\":")
        RecordJSON.appendDate(correlation.startDate, to: &out)
        out.append(",\"endDate\":")
        RecordJSON.appendDate(correlation.endDate, to: &out)
        out.append(",\"sourceApp\":")
        RecordJSON.appendString(correlation.sourceApp, to: &out)
        out.append(",\"metadata\":")
        RecordJSON.appendObject(correlation.metadata, to: &out)
        out.append(",\"members\":[")
        for (i, member) in correlation.members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"type\":")
            RecordJSON.appendString(member.type, to: &out)
            out.append(",\"value\":")
            RecordJSON.appendNumber(member.value, to: &out)
            out.append(",\"unit\":")
            RecordJSON.appendString(member.unit, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}\n")
    }

    /// `metadata` is the correlation's metadata as a JSON object; the member's type, value and unit follow.
    public static let csvColumns = ["type", "startDate", "endDate", "sourceApp", "metadata", "memberType", "memberValue", "memberUnit"]

    public static func appendCSVRows(_ correlation: CorrelationRecord, to out: inout ByteBuffer) {
        var metadata = ByteBuffer(capacity: 256)
        RecordJSON.appendObject(correlation.metadata, to: &metadata)
        for member in correlation.members {
            out.appendCSVCell(correlation.type, first: true)
            out.appendCSVCell(date: correlation.startDate)
            out.appendCSVCell(date: correlation.endDate)
            out.appendCSVCell(correlation.sourceApp)
            out.append(UInt8(ascii: ","))
            metadata.withBytes { out.appendCSVField($0) }
            out.appendCSVCell(member.type)
            out.appendCSVCell(member.value)
            out.appendCSVCell(member.unit)
            out.endCSVRow()
        }
    }
}
