/// "1 metric", "2 metrics", "0 metrics": counts in messages, with the noun in the right number.
public func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
