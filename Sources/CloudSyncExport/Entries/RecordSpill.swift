#if canImport(Glibc)
import Glibc
#endif
import CloudSyncModel

/// Routes, ECGs and FHIR resources read before they can be written (a zip from a pipe lists them
/// before or after export.xml, whose workouts and `ClinicalRecord`s they must be linked to), kept in an anonymous temporary file so that
/// memory stays flat however many there are. A compact binary form: written and read back by this
/// type only, within one run.
final class RecordSpill {
    private let file: UnsafeMutablePointer<FILE>
    private(set) var count = 0

    init() throws {
        guard let file = tmpfile() else { throw ConversionError.output("a temporary file", String(cString: strerror(errno))) }
        self.file = file
    }

    deinit { fclose(file) }

    func append(_ record: EntryRecord) throws {
        var out: [UInt8] = []
        switch record {
        case .route(let route):
            out.append(1)
            Self.put(route.file, &out)
            Self.put(UInt64(route.points.count), &out)
            for point in route.points {
                Self.put(point.time, &out)
                Self.put(point.latitude, &out)
                Self.put(point.longitude, &out)
                for value in [point.elevation, point.speed, point.course, point.horizontalAccuracy, point.verticalAccuracy] {
                    Self.put(value ?? .nan, &out)
                }
            }
        case .ecg(let ecg):
            out.append(2)
            Self.put(ecg.recordedAt, &out)
            for text in [ecg.classification, ecg.symptoms, ecg.lead, ecg.unit, ecg.device, ecg.softwareVersion, ecg.file] {
                Self.put(text, &out)
            }
            Self.put(ecg.sampleRateHz ?? .nan, &out)
            Self.put(UInt64(ecg.samples.count), &out)
            for sample in ecg.samples { Self.put(sample, &out) }
        case .clinical(let clinical):
            out.append(3)
            Self.put(clinical.file, &out)
            Self.put(clinical.resource.map { String(decoding: $0, as: UTF8.self) }, &out)
        }
        var length = UInt64(out.count)
        guard fwrite(&length, 8, 1, file) == 1, fwrite(out, 1, out.count, file) == out.count else {
            throw ConversionError.output("a temporary file", String(cString: strerror(errno)))
        }
        count += 1
    }

    /// Reads every record back, in the order written.
    func replay(_ body: (EntryRecord) throws -> Void) throws {
        rewind(file)
        var length: UInt64 = 0
        while fread(&length, 8, 1, file) == 1 {
            var bytes = [UInt8](repeating: 0, count: Int(length))
            guard fread(&bytes, 1, bytes.count, file) == bytes.count else { break }
            var reader = Reader(bytes: bytes)
            try body(reader.record())
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func record() -> EntryRecord {
            let tag = byte()
            if tag == 3 {
                let file = string()
                return .clinical(ClinicalResource(file: file, resource: string().map { Array($0.utf8) }))
            }
            if tag == 1 {
                let file = string()
                var points: [RoutePoint] = []
                let count = Int(u64())
                points.reserveCapacity(count)
                for _ in 0..<count {
                    let time = optionalTime()
                    let latitude = double(), longitude = double()
                    let rest = (0..<5).map { _ in optional(double()) }
                    points.append(RoutePoint(time: time, latitude: latitude, longitude: longitude, elevation: rest[0], speed: rest[1],
                                             course: rest[2], horizontalAccuracy: rest[3], verticalAccuracy: rest[4]))
                }
                return .route(Route(file: file, points: points))
            }
            let recordedAt = Int64(bitPattern: u64())
            let texts = (0..<7).map { _ in string() }
            let rate = optional(double())
            let count = Int(u64())
            let samples = (0..<count).map { _ in double() }
            return .ecg(ECGRecording(recordedAt: recordedAt, classification: texts[0], symptoms: texts[1], sampleRateHz: rate,
                                     lead: texts[2], unit: texts[3], device: texts[4], softwareVersion: texts[5], file: texts[6],
                                     samples: samples))
        }

        mutating func byte() -> UInt8 { defer { offset += 1 }; return bytes[offset] }
        mutating func u64() -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return value
        }
        mutating func double() -> Double { Double(bitPattern: u64()) }
        mutating func optionalTime() -> Int64? { byte() == 0 ? nil : Int64(bitPattern: u64()) }
        func optional(_ value: Double) -> Double? { value.isNaN ? nil : value }
        mutating func string() -> String? {
            guard byte() == 1 else { return nil }
            let count = Int(u64())
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }
    }

    private static func put(_ value: UInt64, _ out: inout [UInt8]) {
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
    private static func put(_ value: Int64, _ out: inout [UInt8]) { put(UInt64(bitPattern: value), &out) }
    private static func put(_ value: Double, _ out: inout [UInt8]) { put(value.bitPattern, &out) }
    private static func put(_ value: Int64?, _ out: inout [UInt8]) {
        guard let value else { out.append(0); return }
        out.append(1)
        put(value, &out)
    }
    private static func put(_ text: String?, _ out: inout [UInt8]) {
        guard let text else { out.append(0); return }
        out.append(1)
        put(UInt64(text.utf8.count), &out)
        out.append(contentsOf: text.utf8)
    }
}
