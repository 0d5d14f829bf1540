package import CloudSyncModel
import Foundation

/// Reads one Apple Watch ECG (`electrocardiograms/ecg_….csv`) from bytes: a header of `label,value`
/// lines (Name, Date of Birth, Recorded Date, Classification, Symptoms, Software Version, Device,
/// Sample Rate, Lead, Unit), then one voltage per line.
///
/// The labels follow the phone's language, so the header is read by position (Apple writes it in
/// that order) when the labels are not the English ones; the decimal separator may be a comma
/// (`-107,825`, quoted or not). Lines are bounded in length and the file in size.
package final class ECGReader: EntryReader {
    static let maximumBytes = 64 << 20
    static let maximumLineLength = 4096

    // Unchecked: one thread reads an ECG, and the checks were a third of a sample line's cost.
    @exclusivity(unchecked) private var line: [UInt8] = []
    private var header: [(label: String, value: String)] = []
    @exclusivity(unchecked) private var samples: [Double] = []
    @exclusivity(unchecked) private var lineNumber = 0
    @exclusivity(unchecked) private var bytes = 0
    @exclusivity(unchecked) private var inSamples = false

    package init() {}

    package func consume(_ chunk: ByteText) throws {
        bytes += chunk.count
        guard bytes <= Self.maximumBytes else { throw EntryProblem("larger than \(Self.maximumBytes >> 20) MiB") }
        var start = 0
        for i in 0..<chunk.count where chunk[i] == 0x0A {
            try append(chunk.slice(start..<i))
            try endLine()
            start = i + 1
        }
        try append(chunk.slice(start..<chunk.count))
    }

    package func finish(path: String) throws -> ECGRecording {
        if !line.isEmpty { try endLine() }
        let fields = Self.fields(header)
        guard let recorded = fields.recorded, let recordedAt = Self.date(recorded) else {
            throw EntryProblem("no Recorded Date in its header")
        }
        guard !samples.isEmpty else { throw EntryProblem("no samples") }
        return ECGRecording(recordedAt: recordedAt, classification: fields.classification, symptoms: fields.symptoms,
                            sampleRateHz: fields.sampleRate.flatMap(Self.leadingNumber), lead: fields.lead, unit: fields.unit,
                            device: fields.device, softwareVersion: fields.softwareVersion,
                            file: path, samples: samples)
    }

    private func append(_ bytes: ByteText) throws {
        guard line.count + bytes.count <= Self.maximumLineLength else {
            throw EntryProblem("line \(lineNumber + 1) is longer than \(Self.maximumLineLength) bytes")
        }
        line.append(contentsOf: bytes)
    }

    private func endLine() throws {
        lineNumber += 1
        defer { line.removeAll(keepingCapacity: true) }
        if line.last == 0x0D { line.removeLast() }
        if lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        if line.isEmpty { return }
        if !inSamples, header.count >= 8, let value = Self.sample(line) {
            inSamples = true
            samples.append(value)
            return
        }
        if inSamples {
            guard let value = Self.sample(line) else {
                throw EntryProblem("line \(lineNumber): '\(String(decoding: line.prefix(40), as: UTF8.self))' is not a number")
            }
            samples.append(value)
            return
        }
        guard header.count < 32 else { throw EntryProblem("no samples after a header of 32 lines") }
        header.append(Self.split(String(decoding: line, as: UTF8.self)))
    }

    /// `label,value` with CSV quoting of the value (`Device,"Watch6,7"`).
    static func split(_ text: String) -> (label: String, value: String) {
        guard let comma = text.firstIndex(of: ",") else { return (text, "") }
        var value = String(text[text.index(after: comma)...]).trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
            value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
        }
        return (String(text[..<comma]), value)
    }

    /// A voltage: `-107.825`, `-107,825` or `"-107,825"`.
    static func sample(_ line: [UInt8]) -> Double? {
        var bytes = line.filter { $0 != UInt8(ascii: "\"") && $0 != 0x20 }
        if let comma = bytes.firstIndex(of: UInt8(ascii: ",")), !bytes.contains(UInt8(ascii: ".")) { bytes[comma] = UInt8(ascii: ".") }
        guard !bytes.isEmpty, let parsed = bytes.withUnsafeBufferPointer(DecimalParser.parse), parsed.value.isFinite else { return nil }
        return parsed.value
    }

    struct Fields {
        var recorded, classification, symptoms, softwareVersion, device, sampleRate, lead, unit: String?
    }

    /// The header's values: by English label, else by Apple's order of the lines.
    static func fields(_ header: [(label: String, value: String)]) -> Fields {
        var fields = Fields()
        let labels: [String: WritableKeyPath<Fields, String?>] = [
            "recorded date": \.recorded, "classification": \.classification, "symptoms": \.symptoms,
            "software version": \.softwareVersion, "device": \.device, "sample rate": \.sampleRate, "lead": \.lead, "unit": \.unit,
        ]
        var matched = 0
        for entry in header {
            if let key = labels[entry.label.lowercased()] {
                fields[keyPath: key] = entry.value.isEmpty ? nil : entry.value
                matched += 1
            }
        }
        if matched >= 4 { return fields }
        // Another language: Name, Date of Birth, Recorded Date, Classification, Symptoms, Software
        // Version, Device, Sample Rate, Lead, Unit.
        let order: [WritableKeyPath<Fields, String?>?] = [nil, nil, \.recorded, \.classification, \.symptoms, \.softwareVersion,
                                                          \.device, \.sampleRate, \.lead, \.unit]
        for (entry, key) in zip(header, order) {
            if let key { fields[keyPath: key] = entry.value.isEmpty ? nil : entry.value }
        }
        return fields
    }

    static func date(_ text: String) -> Int64? {
        var copy = text
        return copy.withUTF8 { ExportDateParser.epochSeconds($0) }
    }

    /// `512 hertz` → 512; `512,0 Hz` → 512.
    static func leadingNumber(_ text: String) -> Double? {
        let number = text.prefix { $0.isNumber || $0 == "." || $0 == "," }.replacingOccurrences(of: ",", with: ".")
        return Double(number)
    }
}
