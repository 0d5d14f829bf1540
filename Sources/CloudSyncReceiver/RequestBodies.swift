import CloudSyncModel
import Foundation

/// Request bodies of the three contracts, decoded with `JSONDecoder` (the native implementation:
/// `JSONSerialization` took 80% of the receiver's CPU). A decoding failure names the field.

struct HealthDataExportBody: Decodable {
    struct DataRange: Decodable { var startDate: String; var endDate: String }
    var userId: String
    var deviceId: String
    var exportTimestamp: String
    var dataRange: DataRange
    var metrics: [MetricBody]
}

struct MetricBody: Decodable {
    var type: String
    var startDate: String
    var endDate: String
    var value: Double
    var unit: String
    var sourceApp: String
    /// Must be an object (the real backend answers 500 to a null; we answer 422).
    var metadata: [String: JSONValue]
}

struct FloSamplesBody: Decodable {
    struct Sample: Codable {
        var dataType: String
        var value: Double
        var unit: String
        var startDate: String
        var endDate: String
        var uuid: String
        var sourceName: String?
        var sourceBundleId: String?
        var deviceName: String?
        var deviceManufacturer: String?
        var deviceModel: String?
        var metadata: [String: JSONValue]?
    }
    var samples: [Sample]
}

struct StepsBody: Decodable {
    struct Sample: Codable {
        var uuid: String
        var startDate: String
        var endDate: String
        var count: Int
        var sourceBundleId: String?
        var sourceDeviceName: String?
    }
    var samples: [Sample]
}

/// Any JSON value, for metadata objects.
enum JSONValue: Codable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Strings first: metadata values are strings (the spec), and every failed attempt throws.
        if let value = try? container.decode(String.self) { self = .string(value) }
        else if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// A metadata value as the store keeps it: a string as it is, anything else as its JSON.
    var metadataText: String {
        if case .string(let value) = self { return value }
        var out = ""
        write(to: &out)
        return out
    }

    /// Compact JSON with sorted keys, written by hand: a `JSONEncoder` per stored metric cost more
    /// than the insert itself.
    static func serialize(_ object: [String: JSONValue]) -> String {
        var out = ""
        JSONValue.object(object).write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &out)
        case .number(let value):
            out += value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .array(let values):
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    /// Escaped by the model's one JSON string writer, so that a stored metadata object reads as
    /// `convert` writes it.
    static func writeString(_ value: String, to out: inout String) {
        var buffer = CloudSyncModel.ByteBuffer(capacity: value.utf8.count + 2)
        RecordJSON.appendString(value, to: &buffer)
        out += buffer.withBytes { $0.string }
    }
}

enum BodyDecoding {
    static let decoder = JSONDecoder()
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Decodes `T`, or says which field is wrong: `metrics[1].metadata`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) -> Result<T, FieldProblem> {
        do {
            return .success(try decoder.decode(type, from: data))
        } catch let error as DecodingError {
            return .failure(FieldProblem(error))
        } catch {
            return .failure(FieldProblem(field: "body", message: "\(error)", type: "value_error"))
        }
    }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// One wrong field, FastAPI style.
struct FieldProblem: Error {
    var field: String
    var message: String
    var type: String

    init(field: String, message: String, type: String) {
        self.field = field
        self.message = message
        self.type = type
    }

    /// A field that is not there, as the decoder's answer says it (and the readers that answer as it).
    init(missing field: String) {
        self.init(field: field, message: "field required", type: "value_error.missing")
    }

    /// A field that is null, as the decoder's answer says it.
    init(null field: String) {
        self.init(field: field, message: "none is not an allowed value", type: "type_error.none.not_allowed")
    }

    init(_ error: DecodingError) {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(missing: path(context.codingPath + [key]))
        case .valueNotFound(_, let context):
            self.init(null: path(context.codingPath))
        case .typeMismatch(let type, let context):
            self.init(field: path(context.codingPath), message: "must be \(type == Double.self ? "a number" : type == String.self ? "a string" : "of type \(type)")", type: "type_error")
        case .dataCorrupted(let context):
            self.init(field: path(context.codingPath), message: "not valid JSON", type: "value_error.jsondecode")
        @unknown default:
            self.init(field: "body", message: "\(error)", type: "value_error")
        }
    }

    var words: String { "\(field): \(message)" }
}
