import CloudSyncModel
/// Building typed elements from an `ElementTree` (the cold path: a `String` per attribute).
extension ExportElement {
    public init(_ tree: ElementTree) {
        let root = tree.root
        switch tree.name(root) {
        case .exportDate: self = .exportDate(ExportDate(value: tree.value(.value, of: root)?.string ?? ""))
        case .me: self = .me(Me(attributes: tree.attributeDictionary(root)))
        case .record: self = .record(Record(tree, root))
        case .correlation:
            self = .correlation(Correlation(attributes: tree.attributeDictionary(root), metadata: tree.metadata(root),
                                            records: tree.children(of: root, named: .record).map { Record(tree, $0) }))
        case .workout:
            self = .workout(Workout(
                attributes: tree.attributeDictionary(root), metadata: tree.metadata(root),
                events: tree.children(of: root, named: .workoutEvent).map { WorkoutEvent(tree, $0) },
                statistics: tree.children(of: root, named: .workoutStatistics).map { WorkoutStatistics(attributes: tree.attributeDictionary($0)) },
                activities: tree.children(of: root, named: .workoutActivity).map { WorkoutActivity(tree, $0) },
                routes: tree.children(of: root, named: .workoutRoute).map { WorkoutRoute(tree, $0) }))
        case .activitySummary: self = .activitySummary(ActivitySummary(attributes: tree.attributeDictionary(root)))
        case .clinicalRecord: self = .clinicalRecord(ClinicalRecord(attributes: tree.attributeDictionary(root)))
        case .audiogram:
            self = .audiogram(AudiogramElement(attributes: tree.attributeDictionary(root), metadata: tree.metadata(root),
                                        sensitivityPoints: tree.children(of: root, named: .sensitivityPoint).map(tree.attributeDictionary)))
        case .visionPrescription:
            self = .visionPrescription(VisionPrescriptionElement(
                attributes: tree.attributeDictionary(root), metadata: tree.metadata(root),
                rightEye: tree.children(of: root, named: .rightEye).first.map(tree.attributeDictionary),
                leftEye: tree.children(of: root, named: .leftEye).first.map(tree.attributeDictionary),
                attachments: tree.children(of: root, named: .attachment).map(tree.attributeDictionary)))
        default:
            self = .unknown(tree.nodeName(root), attributes: tree.attributeDictionary(root))
        }
    }
}

extension Record {
    init(_ tree: ElementTree, _ node: Int) {
        attributes = tree.attributeDictionary(node)
        metadata = tree.metadata(node)
        beats = tree.children(of: node, named: .heartRateVariabilityMetadataList).flatMap { list in
            tree.children(of: list, named: .instantaneousBeatsPerMinute).map { beat in
                InstantaneousBeatsPerMinute(bpm: tree.value(.bpm, of: beat).flatMap { Int($0.string) },
                                            time: tree.value(.time, of: beat)?.string ?? "")
            }
        }
    }
}

extension WorkoutEvent {
    init(_ tree: ElementTree, _ node: Int) {
        attributes = tree.attributeDictionary(node)
        metadata = tree.metadata(node)
    }
}

extension WorkoutActivity {
    init(_ tree: ElementTree, _ node: Int) {
        attributes = tree.attributeDictionary(node)
        metadata = tree.metadata(node)
        events = tree.children(of: node, named: .workoutEvent).map { WorkoutEvent(tree, $0) }
        statistics = tree.children(of: node, named: .workoutStatistics).map { WorkoutStatistics(attributes: tree.attributeDictionary($0)) }
    }
}

extension WorkoutRoute {
    init(_ tree: ElementTree, _ node: Int) {
        attributes = tree.attributeDictionary(node)
        metadata = tree.metadata(node)
        filePath = tree.children(of: node, named: .fileReference).first.flatMap { tree.value(.path, of: $0)?.string }
        locations = tree.children(of: node, named: .location).map { Location(attributes: tree.attributeDictionary($0)) }
    }
}

extension ElementTree {
    func attributeDictionary(_ node: Int) -> Attributes {
        Dictionary(attributes(of: node).map { ($0.name.string, $0.value.string) }, uniquingKeysWith: { first, _ in first })
    }

    func metadata(_ node: Int) -> [MetadataEntry] {
        children(of: node, named: .metadataEntry).map {
            MetadataEntry(key: value(.key, of: $0)?.string ?? "", value: value(.value, of: $0)?.string ?? "")
        }
    }

    func children(of node: Int, named name: ElementName) -> [Int] {
        children(of: node).filter { nodes[$0].name == name }
    }
}
