import CloudSyncModel
/// One item of `ecg[]` (`start`, `end`, `classification`, `severity`, `averageHeartRate`,
/// `numberOfVoltageMeasurements`, `samplingFrequency`, `source`, `voltageMeasurements`): the same
/// recording as the export's `electrocardiograms/*.csv`, an `ECGRecording` in µV. Real files give
/// each voltage in `mcV` with a number for its date; the documentation in `V` with a text date. The
/// voltages are kept in their order (their times are the sampling frequency's); `severity` ("Not
/// Set" in every real file) is not kept.
enum ECGItemReader {
    static func read(_ cursor: inout JSONCursor) throws -> ECGRecording {
        var start: LocalDate?, classification: String?, source: String?
        var frequency: Double?, averageHeartRate: Double?
        var voltages: [Double] = []
        try cursor.object { cursor, key in
            switch key.string {
            case "start", "date": start = try cursor.instant("start")
            case "classification": classification = try cursor.text()
            case "source": source = try cursor.sourceName()
            case "samplingFrequency": frequency = try cursor.looseNumber()
            case "averageHeartRate": averageHeartRate = try cursor.looseNumber()
            case "voltageMeasurements":
                if try cursor.null() { break }
                try cursor.array { cursor, _ in
                    var voltage: Double?, scale = 1.0
                    try cursor.object { cursor, key in
                        switch key.string {
                        case "voltage", "qty", "value": voltage = try cursor.looseNumber()
                        case "units", "unit": scale = Self.microvolts(per: try cursor.text() ?? "")
                        default: try cursor.skipValue()
                        }
                    }
                    guard let voltage else { throw cursor.shape("a voltage measurement without voltage") }
                    voltages.append(voltage * scale)
                }
            default: try cursor.skipValue()
            }
        }
        guard let start else { throw cursor.shape("an ECG without start") }
        return ECGRecording(recordedAt: start.utc, classification: classification, sampleRateHz: frequency, unit: "µV", device: source,
                            averageHeartRate: (averageHeartRate ?? 0) > 0 ? averageHeartRate : nil, samples: voltages)
    }

    /// µV per unit written: `mcV`, `µV`, `uV` 1; `mV` 1,000; `V` 1,000,000.
    static func microvolts(per unit: String) -> Double {
        switch unit.trimmingSpaces {
        case "V", "volt", "volts": return 1_000_000
        case "mV": return 1000
        default: return 1
        }
    }
}
