/// An Apple Watch electrocardiogram: a file of the export (`electrocardiograms/ecg_….csv`), or an
/// item of Health Auto Export's `ecg` array, the same recording.
public struct ECGRecording: Sendable, Equatable {
    /// Seconds since 1970, UTC.
    public var recordedAt: Int64
    public var classification: String?
    public var symptoms: String?
    public var sampleRateHz: Double?
    public var lead: String?
    public var unit: String?
    public var device: String?
    public var softwareVersion: String?
    /// The entry's path from `electrocardiograms/` on.
    public var file: String?
    /// The Watch's average heart rate over the recording (Health Auto Export gives it; the
    /// export's CSV does not).
    public var averageHeartRate: Double?
    /// The voltages, in `unit`.
    public var samples: [Double]

    public init(recordedAt: Int64, classification: String? = nil, symptoms: String? = nil, sampleRateHz: Double? = nil,
                lead: String? = nil, unit: String? = nil, device: String? = nil, softwareVersion: String? = nil,
                file: String? = nil, averageHeartRate: Double? = nil, samples: [Double]) {
        self.recordedAt = recordedAt
        self.classification = classification
        self.symptoms = symptoms
        self.sampleRateHz = sampleRateHz
        self.lead = lead
        self.unit = unit
        self.device = device
        self.softwareVersion = softwareVersion
        self.file = file
        self.averageHeartRate = averageHeartRate
        self.samples = samples
    }

    public var key: String { file ?? "ecg:\(recordedAt)" }
}

/// The ECG kind: Apple Watch electrocardiograms. JSON Lines: one recording per line with its
/// voltages; CSV: one row per voltage, the recording's fields on each.
public enum ECGKind: RecordKind {
    public typealias Record = ECGRecording
    public static let name = "ecg"
    public static let noun = Noun("ECG")
    public static let part: Noun? = Noun("sample")
    public static func parts(of ecg: ECGRecording) -> Int { ecg.samples.count }
    public static func date(of ecg: ECGRecording) -> Int64? { ecg.recordedAt }

    /// `{"recordedAt","classification","symptoms","sampleRateHz","lead","unit","device",
    /// "softwareVersion","file","averageHeartRate","samples":[…]}`.
    public static func appendJSONLines(_ ecg: ECGRecording, to out: inout ByteBuffer) {
        out.append("{\"recordedAt\":")
        RecordJSON.appendDate(ecg.recordedAt, to: &out)
        out.append(",\"classification\":")
        RecordJSON.appendString(ecg.classification, to: &out)
        out.append(",\"symptoms\":")
        RecordJSON.appendString(ecg.symptoms, to: &out)
        out.append(",\"sampleRateHz\":")
        RecordJSON.appendNumber(ecg.sampleRateHz, to: &out)
        out.append(",\"lead\":")
        RecordJSON.appendString(ecg.lead, to: &out)
        out.append(",\"unit\":")
        RecordJSON.appendString(ecg.unit, to: &out)
        out.append(",\"device\":")
        RecordJSON.appendString(ecg.device, to: &out)
        out.append(",\"softwareVersion\":")
        RecordJSON.appendString(ecg.softwareVersion, to: &out)
        out.append(",\"file\":")
        RecordJSON.appendString(ecg.file, to: &out)
        out.append(",\"averageHeartRate\":")
        RecordJSON.appendNumber(ecg.averageHeartRate, to: &out)
        out.append(",\"samples\":[")
        for (i, sample) in ecg.samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            NumberFormatting.append(sample, to: &out)
        }
        out.append("]}\n")
    }

    /// `index` counts from 0; `seconds` is the time since the recording began (index / rate).
    public static let csvColumns = ["recordedAt", "file", "classification", "symptoms", "lead", "unit", "sampleRateHz", "device",
                                    "softwareVersion", "averageHeartRate", "index", "seconds", "voltage"]

    public static func appendCSVRows(_ ecg: ECGRecording, to out: inout ByteBuffer) {
        var head = ByteBuffer(capacity: 256)
        head.appendCSVCell(date: ecg.recordedAt, first: true)
        for text in [ecg.file, ecg.classification, ecg.symptoms, ecg.lead, ecg.unit] { head.appendCSVCell(text) }
        head.appendCSVCell(ecg.sampleRateHz)
        head.appendCSVCell(ecg.device)
        head.appendCSVCell(ecg.softwareVersion)
        head.appendCSVCell(ecg.averageHeartRate)
        for (index, voltage) in ecg.samples.enumerated() {
            head.withBytes { out.append($0) }
            out.appendCSVCell(Int64(index))
            out.appendCSVCell(ecg.sampleRateHz.map { $0 > 0 ? Double(index) / $0 : nil } ?? nil)
            out.appendCSVCell(voltage)
            out.endCSVRow()
        }
    }
}
