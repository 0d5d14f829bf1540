/// Routes as one GeoJSON `FeatureCollection`, written feature by feature (flat memory). It takes
/// routes only: any other kind is an error, never dropped without a word.
public final class GeoJSONSink: RecordSink {
    private let output: OutputFile
    private var features = 0
    public init(output: OutputFile) {
        self.output = output
        output.buffer.append("{\"type\":\"FeatureCollection\",\"features\":[")
    }

    public func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        guard let route = record as? Route else {
            throw ConversionError.output(output.name, "GeoJSON holds routes, not \(Kind.noun.plural)")
        }
        // A route without points has no geometry RFC 7946 allows: it is left out.
        guard !route.points.isEmpty else { return }
        output.buffer.append(features == 0 ? "\n" : ",\n")
        RouteKind.appendFeature(route, to: &output.buffer)
        features += 1
        try output.flushIfFull()
    }

    public func finish() throws {
        output.buffer.append("\n]}\n")
        try output.finish()
    }
}
