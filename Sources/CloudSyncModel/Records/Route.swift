/// One GPS point of a workout route, as Apple's GPX (or a pre-iOS 13 inline `Location`) gives it.
/// The optional values are nil when the file does not carry them.
public struct RoutePoint: Sendable, Equatable {
    /// Seconds since 1970, UTC.
    public var time: Int64?
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var elevation: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees.
    public var course: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?

    public init(time: Int64?, latitude: Double, longitude: Double, elevation: Double? = nil, speed: Double? = nil,
                course: Double? = nil, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
    }
}

/// A workout's GPS track: the points of one GPX file (or of one workout's inline locations), and
/// the workout it belongs to when the export says so.
public struct Route: Sendable, Equatable {
    /// The entry's path in the archive from `workout-routes/` on (`workout-routes/route_….gpx`);
    /// nil for a route written inline in export.xml.
    public var file: String?
    /// The workout's `workoutActivityType`, start and end; nil for a route no workout references.
    public var workoutType: String?
    public var workoutStart: Int64?
    public var workoutEnd: Int64?
    public var points: [RoutePoint]

    public init(file: String?, workoutType: String? = nil, workoutStart: Int64? = nil, workoutEnd: Int64? = nil,
                points: [RoutePoint]) {
        self.file = file
        self.workoutType = workoutType
        self.workoutStart = workoutStart
        self.workoutEnd = workoutEnd
        self.points = points
    }

    /// What identifies the route in the store: its file, or for an inline route its workout.
    public var key: String {
        file ?? "inline:\(workoutType ?? ""):\(workoutStart.map(String.init) ?? "")"
    }
}

/// The route kind: GPS points of workouts. JSON Lines and CSV give one line per point, with the
/// route's workout and file on each.
public enum RouteKind: RecordKind {
    public typealias Record = Route
    public static let name = "routes"
    public static let noun = Noun("route")
    public static let part: Noun? = Noun("point")
    public static func parts(of route: Route) -> Int { route.points.count }
    public static func date(of route: Route) -> Int64? { route.points.first?.time ?? route.workoutStart }

    /// `{"workoutType","workoutStart","file","time","latitude","longitude","elevation","speed","course",
    /// "horizontalAccuracy","verticalAccuracy"}` per point.
    public static func appendJSONLines(_ route: Route, to out: inout ByteBuffer) {
        for point in route.points {
            out.append("{\"workoutType\":")
            RecordJSON.appendString(route.workoutType, to: &out)
            out.append(",\"workoutStart\":")
            RecordJSON.appendDate(route.workoutStart, to: &out)
            out.append(",\"file\":")
            RecordJSON.appendString(route.file, to: &out)
            out.append(",\"time\":")
            RecordJSON.appendDate(point.time, to: &out)
            out.append(",\"latitude\":")
            NumberFormatting.append(point.latitude, to: &out)
            out.append(",\"longitude\":")
            NumberFormatting.append(point.longitude, to: &out)
            out.append(",\"elevation\":")
            RecordJSON.appendNumber(point.elevation, to: &out)
            out.append(",\"speed\":")
            RecordJSON.appendNumber(point.speed, to: &out)
            out.append(",\"course\":")
            RecordJSON.appendNumber(point.course, to: &out)
            out.append(",\"horizontalAccuracy\":")
            RecordJSON.appendNumber(point.horizontalAccuracy, to: &out)
            out.append(",\"verticalAccuracy\":")
            RecordJSON.appendNumber(point.verticalAccuracy, to: &out)
            out.append("}\n")
        }
    }

    public static let csvColumns = ["workoutType", "workoutStart", "file", "time", "latitude", "longitude", "elevation", "speed",
                                    "course", "horizontalAccuracy", "verticalAccuracy"]

    public static func appendCSVRows(_ route: Route, to out: inout ByteBuffer) {
        for point in route.points {
            out.appendCSVCell(route.workoutType, first: true)
            out.appendCSVCell(date: route.workoutStart)
            out.appendCSVCell(route.file)
            out.appendCSVCell(date: point.time)
            out.appendCSVCell(point.latitude)
            out.appendCSVCell(point.longitude)
            for value in [point.elevation, point.speed, point.course, point.horizontalAccuracy, point.verticalAccuracy] {
                out.appendCSVCell(value)
            }
            out.endCSVRow()
        }
    }

    /// One GeoJSON `Feature` (RFC 7946): a `LineString` of `[longitude, latitude, elevation]` (a
    /// `Point` for a route of one point: a LineString needs two positions), with the workout and the
    /// file as properties.
    public static func appendFeature(_ route: Route, to out: inout ByteBuffer) {
        out.append("{\"type\":\"Feature\",\"geometry\":{\"type\":")
        out.append(route.points.count == 1 ? "\"Point\",\"coordinates\":" : "\"LineString\",\"coordinates\":[")
        for (i, point) in route.points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            NumberFormatting.append(point.longitude, to: &out)
            out.append(UInt8(ascii: ","))
            NumberFormatting.append(point.latitude, to: &out)
            if let elevation = point.elevation {
                out.append(UInt8(ascii: ","))
                NumberFormatting.append(elevation, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if route.points.count != 1 { out.append(UInt8(ascii: "]")) }
        out.append("},\"properties\":{\"workoutType\":")
        RecordJSON.appendString(route.workoutType, to: &out)
        out.append(",\"workoutStart\":")
        RecordJSON.appendDate(route.workoutStart, to: &out)
        out.append(",\"workoutEnd\":")
        RecordJSON.appendDate(route.workoutEnd, to: &out)
        out.append(",\"start\":")
        RecordJSON.appendDate(route.points.first?.time, to: &out)
        out.append(",\"end\":")
        RecordJSON.appendDate(route.points.last?.time, to: &out)
        out.append(",\"file\":")
        RecordJSON.appendString(route.file, to: &out)
        out.append(",\"points\":")
        out.appendInteger(Int64(route.points.count))
        out.append("}}")
    }
}
