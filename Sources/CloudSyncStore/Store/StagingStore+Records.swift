import CloudSyncExport
import CloudSyncModel

extension StagingStore {
    /// Sends the stored routes, in import order, to `sink` (JSONL points, GeoJSON). `filter`'s
    /// dates apply to a route's first point (or its workout's start).
    @discardableResult
    public func exportRoutes(filter: MetricFilter = .all, to sink: any RecordSink) throws -> Int {
        try storeErrors {
            var count = 0
            try forEachStoredRoute { route in
                if let start = route.points.first?.time ?? route.workoutStart, !filter.acceptsDate(start) { return }
                try sink.write(route)
                count += 1
            }
            try sink.finish()
            return count
        }
    }

    /// The stored routes (one, by `id`), with their points, in import order.
    func storedRoutes(id: Int64) throws -> [Route] {
        var routes: [Route] = []
        try forEachStoredRoute(id: id) { routes.append($0) }
        return routes
    }

    private func forEachStoredRoute(id: Int64? = nil, _ body: (Route) throws -> Void) throws {
        let routes = try database.prepare("""
            SELECT id, file, workout_type, workout_start, workout_end FROM route \(id == nil ? "" : "WHERE id = ?") ORDER BY id
            """)
        if let id { try routes.bind(1, id) }
        let points = try database.prepare("""
            SELECT time, latitude, longitude, elevation, speed, course, horizontal_accuracy, vertical_accuracy
            FROM route_point WHERE route_id = ? ORDER BY seq
            """)
        while try routes.step() {
            var route = Route(file: routes.text(1), workoutType: routes.text(2), workoutStart: routes.optionalInt64(3),
                              workoutEnd: routes.optionalInt64(4), points: [])
            try points.bind(1, routes.int64(0))
            while try points.step() {
                route.points.append(RoutePoint(time: points.optionalInt64(0), latitude: points.double(1), longitude: points.double(2),
                                               elevation: points.optionalDouble(3), speed: points.optionalDouble(4),
                                               course: points.optionalDouble(5), horizontalAccuracy: points.optionalDouble(6),
                                               verticalAccuracy: points.optionalDouble(7)))
            }
            points.reset()
            try body(route)
        }
    }

    /// Sends the stored ECGs, in import order, to `sink`.
    @discardableResult
    public func exportECGs(filter: MetricFilter = .all, to sink: any RecordSink) throws -> Int {
        try exportRows("""
            SELECT recorded_at, classification, symptoms, sample_rate, lead, unit, device, software_version, file, samples
            FROM ecg ORDER BY id
            """, to: sink) { rows in
            let ecg = ECGRecording(recordedAt: rows.int64(0), classification: rows.text(1), symptoms: rows.text(2),
                                   sampleRateHz: rows.optionalDouble(3), lead: rows.text(4), unit: rows.text(5),
                                   device: rows.text(6), softwareVersion: rows.text(7), file: rows.text(8),
                                   samples: ECGSamples.decoded(rows.blob(9)))
            guard filter.acceptsDate(ecg.recordedAt) else { return false }
            try sink.write(ecg)
            return true
        }
    }

    /// Sends the stored beat series, in import order, to `sink`.
    @discardableResult
    public func exportBeatSeries(filter: MetricFilter = .all, to sink: any RecordSink) throws -> Int {
        try exportRows("SELECT type, start_date, end_date, source_app, value, beats FROM beat_series ORDER BY id", to: sink) { rows in
            let words = ECGSamples.words(rows.blob(5))
            let beats = stride(from: 0, to: words.count - 1, by: 2).map { Beat(time: Int64(bitPattern: words[$0]), bpm: Int(words[$0 + 1])) }
            let series = BeatSeries(type: rows.text(0) ?? "", startDate: rows.int64(1), endDate: rows.int64(2),
                                    sourceApp: rows.text(3) ?? "", value: rows.optionalDouble(4), beats: beats)
            guard filter.acceptsDate(series.startDate) else { return false }
            try sink.write(series)
            return true
        }
    }

    /// Writes the stored correlations, in import order, as the lines `convert --kind correlations` writes.
    @discardableResult
    public func exportCorrelations(filter: MetricFilter = .all, to output: OutputFile) throws -> Int {
        try exportLines("SELECT start_date, line FROM correlation ORDER BY id", filter: filter, to: output)
    }

    /// Writes the stored clinical records, in import order, as the lines `convert --kind clinical`
    /// writes (the dates filter on `receivedDate`; a record without one is always written).
    @discardableResult
    public func exportClinicalRecords(filter: MetricFilter = .all, to output: OutputFile) throws -> Int {
        try exportLines("SELECT received_date, line FROM clinical_record ORDER BY id", filter: filter, to: output)
    }

    /// Writes the `line` column of `sql`'s rows whose date (the first column) passes `filter`.
    private func exportLines(_ sql: String, filter: MetricFilter, to output: OutputFile) throws -> Int {
        try storeErrors {
            let rows = try database.prepare(sql)
            var count = 0
            while try rows.step() {
                guard rows.isNull(0) || filter.acceptsDate(rows.int64(0)) else { continue }
                output.buffer.append(rows.bytes(1))
                output.buffer.append(UInt8(ascii: "\n"))
                try output.flushIfFull()
                count += 1
            }
            try output.finish()
            return count
        }
    }

    /// Steps through `sql`'s rows, giving each to `write` (true when it wrote the row), then
    /// finishes the sink; returns how many rows were written.
    private func exportRows(_ sql: String, to sink: any RecordSink, _ write: (SQLiteStatement) throws -> Bool) throws -> Int {
        try storeErrors {
            let rows = try database.prepare(sql)
            var count = 0
            while try rows.step() { if try write(rows) { count += 1 } }
            try sink.finish()
            return count
        }
    }
}
