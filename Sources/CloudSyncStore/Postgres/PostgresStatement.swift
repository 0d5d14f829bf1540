import CLibPQ
package import CloudSyncModel
import Foundation

/// A statement of `PostgresDatabase`: its SQL translated once (`PlaceholderTranslation`), its values
/// kept as text until the first `step`, which runs it; the rows are then read one by one from the
/// result. Reused with `reset`, as SQLite's.
package final class PostgresStatement: StoreStatement {
    unowned let database: PostgresDatabase
    let sql: String
    private let translated: String
    private var parameters: [String?]
    private var result: OpaquePointer?
    private var row = -1
    private var rows = 0
    /// What `blob` decoded, freed with the result.
    private var decodedBlobs: [UnsafeMutablePointer<UInt8>] = []

    init(database: PostgresDatabase, sql: String) {
        self.database = database
        self.sql = sql
        let translation = PlaceholderTranslation.postgres(sql)
        translated = translation.sql
        parameters = Array(repeating: nil, count: translation.parameters)
    }

    deinit {
        if let result { PQclear(result) }
        freeBlobs()
    }

    private func freeBlobs() {
        for blob in decodedBlobs { PQfreemem(blob) }
        decodedBlobs.removeAll()
    }

    private func set(_ index: Int32, _ text: String?) throws {
        guard index >= 1, Int(index) <= parameters.count else {
            throw PostgresError(sqlState: "", message: "parameter \(index) of \(parameters.count)", sql: sql, database: database.path)
        }
        parameters[Int(index) - 1] = text
    }

    package func bind(_ index: Int32, _ value: Int64) throws { try set(index, String(value)) }
    /// The shortest text that reads back as the same Double; infinities and NaN as PostgreSQL spells them.
    package func bind(_ index: Int32, _ value: Double) throws { try set(index, Self.text(value)) }

    private static func text(_ value: Double) -> String {
        value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-Infinity" : "Infinity") : "\(value)"
    }

    /// A value as a parameter carries it: text, nil for NULL (`PostgresDatabase.executeWithNext`).
    static func text(of value: StoreValue) -> String? {
        switch value {
        case .int(let number): String(number)
        case .double(let number): text(number)
        case .text(let text): text
        case .null: nil
        }
    }
    package func bind(_ index: Int32, _ value: String) throws { try set(index, value) }
    package func bind(_ index: Int32, bytes: ByteText) throws { try set(index, bytes.string) }
    package func bindNull(_ index: Int32) throws { try set(index, nil) }

    @discardableResult
    package func step() throws -> Bool {
        if result == nil {
            let ran = try database.run(translated, parameters: parameters)
            result = ran
            rows = Int(PQntuples(ran))
            row = -1
        }
        freeBlobs()
        row += 1
        return row < rows
    }

    package func rewind() {
        freeBlobs()
        if let result { PQclear(result) }
        result = nil
        row = -1
        rows = 0
    }

    package func reset() {
        rewind()
        for i in parameters.indices { parameters[i] = nil }
    }

    private func cell(_ column: Int32) -> UnsafeMutablePointer<CChar>? {
        guard let result, row >= 0, row < rows, PQgetisnull(result, Int32(row), column) == 0 else { return nil }
        return PQgetvalue(result, Int32(row), column)
    }

    package func isNull(_ column: Int32) -> Bool { cell(column) == nil }
    package func int64(_ column: Int32) -> Int64 {
        guard let cell = cell(column) else { return 0 }
        // A boolean reads as 1 or 0, as SQLite gives it.
        if cell.pointee == CChar(UInt8(ascii: "t")) { return 1 }
        if cell.pointee == CChar(UInt8(ascii: "f")) { return 0 }
        return strtoll(cell, nil, 10)
    }
    package func double(_ column: Int32) -> Double { cell(column).map { strtod($0, nil) } ?? 0 }
    package func text(_ column: Int32) -> String? { cell(column).map { String(cString: $0) } }

    package func bytes(_ column: Int32) -> ByteText {
        guard let cell = cell(column), let result else { return ByteText(start: nil, count: 0) }
        return ByteText(start: UnsafeRawPointer(cell).assumingMemoryBound(to: UInt8.self), count: Int(PQgetlength(result, Int32(row), column)))
    }

    /// bytea as text: `\x` and two hex digits a byte.
    package func bind(_ index: Int32, blob: UnsafeRawBufferPointer) throws {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        hex.reserveCapacity(2 + blob.count * 2)
        for byte in blob {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        try set(index, String(decoding: hex, as: UTF8.self))
    }

    /// The bytes of a bytea column, decoded from its text once per row read.
    package func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let cell = cell(column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        var length = 0
        guard let decoded = PQunescapeBytea(UnsafeRawPointer(cell).assumingMemoryBound(to: UInt8.self), &length) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        decodedBlobs.append(decoded)
        return UnsafeRawBufferPointer(start: decoded, count: length)
    }
}

@available(*, unavailable)
extension PostgresStatement: Sendable {}
