"""CRFsuite's crf1d model file read back in Python: header, labels, attributes, transition and
state features with their weights (what ``crfsuite dump`` prints), for
vitesse.pycrfsuite.Tagger.info and dump and sklearn's CRF.state_features_ and friends.

The layout (CRFsuite 0.12, lib/crf/src/crf1d_model.c): a 48-byte header "lCRF" ... "FOMC"; a
FEAT chunk of 20-byte records (u32 type, u32 src, u32 dst, f64 weight); the label and
attribute names in CQDB chunks (their backward arrays give the name of each id); LFRF and AFRF
chunks listing each label's transition features and each attribute's state features. Every
offset and count is checked against the bytes: a damaged file raises ValueError.
"""
import struct

_HEADER = struct.Struct("<4sI4sIIIIIIIII")


class ParsedDump:
    """A model's parameters, as python-crfsuite's Tagger.info() gives them: ``header`` (the
    file header's fields, as ``crfsuite dump`` prints them), ``labels`` and ``attributes``
    ({name: id, as a str}), ``transitions`` ({(from_label, to_label): weight}) and
    ``state_features`` ({(attribute, label): weight}), in the dump's order. The weights are
    the file's doubles (``crfsuite dump`` prints them rounded to 6 decimals)."""

    def __init__(self):
        self.header, self.labels, self.attributes = {}, {}, {}
        self.transitions, self.state_features = {}, {}


def _u32(data, at, what):
    if at < 0 or at + 4 > len(data):
        raise ValueError("crf1d model: %s at %d is past the end (%d bytes)" % (what, at, len(data)))
    return struct.unpack_from("<I", data, at)[0]


def _names(data, off, count, what):
    """The `count` names of the CQDB chunk at `off`, by id."""
    if count > len(data) // 4:  # each one needs at least a 4-byte backward entry
        raise ValueError("crf1d model: %d %ss do not fit in %d bytes" % (count, what, len(data)))
    if data[off:off + 4] != b"CQDB":
        raise ValueError("crf1d model: no CQDB chunk of %s at %d" % (what, off))
    size = _u32(data, off + 4, what)
    n, bwd = _u32(data, off + 16, what), _u32(data, off + 20, what)
    if n < count or off + size > len(data):
        raise ValueError("crf1d model: the %s chunk holds %d of %d names" % (what, n, count))
    names = []
    for i in range(count):
        rec = off + _u32(data, off + bwd + 4 * i, what)
        ksize = _u32(data, rec + 4, what)
        key = data[rec + 8:rec + 8 + ksize]
        if ksize < 1 or len(key) != ksize or key[-1:] != b"\0":
            raise ValueError("crf1d model: %s %d: a damaged name record" % (what, i))
        names.append(key[:-1].decode("utf-8", "surrogateescape"))
    return names


def _refs(data, off, magic, count, what):
    """Per entry of the LFRF/AFRF chunk at `off`: its feature ids."""
    if count > len(data) // 4:
        raise ValueError("crf1d model: %d %s lists do not fit in %d bytes"
                         % (count, what, len(data)))
    if data[off:off + 4] != magic:
        raise ValueError("crf1d model: no %s chunk at %d" % (magic.decode(), off))
    out = []
    for i in range(count):
        at = _u32(data, off + 12 + 4 * i, what)
        n = _u32(data, at, what)
        if at + 4 + 4 * n > len(data):
            raise ValueError("crf1d model: %s %d: its feature list is past the end" % (what, i))
        out.append(struct.unpack_from("<%dI" % n, data, at + 4))
    return out


def parse(data):
    """The ParsedDump of crf1d model bytes `data`."""
    if len(data) < _HEADER.size or data[:4] != b"lCRF" or data[8:12] != b"FOMC":
        raise ValueError("not a CRFsuite crf1d model")
    (magic, size, typ, version, num_features, num_labels, num_attrs, off_features, off_labels,
     off_attrs, off_labelrefs, off_attrrefs) = _HEADER.unpack_from(data)
    d = ParsedDump()
    d.header = {"magic": magic.decode(), "size": str(size), "type": typ.decode(),
                "version": str(version), "num_features": str(num_features),
                "num_labels": str(num_labels), "num_attrs": str(num_attrs),
                "off_features": "0x%X" % off_features, "off_labels": "0x%X" % off_labels,
                "off_attrs": "0x%X" % off_attrs, "off_labelrefs": "0x%X" % off_labelrefs,
                "off_attrrefs": "0x%X" % off_attrrefs}
    if data[off_features:off_features + 4] != b"FEAT":
        raise ValueError("crf1d model: no FEAT chunk at %d" % off_features)
    n_feat = _u32(data, off_features + 8, "the feature count")
    if off_features + 12 + 20 * n_feat > len(data):
        raise ValueError("crf1d model: %d features do not fit in %d bytes" % (n_feat, len(data)))
    feats = [struct.unpack_from("<IIId", data, off_features + 12 + 20 * i) for i in range(n_feat)]
    labels = _names(data, off_labels, num_labels, "label")
    attrs = _names(data, off_attrs, num_attrs, "attribute")
    d.labels = {name: str(i) for i, name in enumerate(labels)}
    d.attributes = {name: str(i) for i, name in enumerate(attrs)}

    def feature(fid, typ, names):
        if fid >= n_feat:
            raise ValueError("crf1d model: feature id %d of %d" % (fid, n_feat))
        t, src, dst, w = feats[fid]
        if t != typ or src >= len(names) or dst >= len(labels):
            raise ValueError("crf1d model: feature %d is damaged" % fid)
        return (names[src], labels[dst]), w

    for fids in _refs(data, off_labelrefs, b"LFRF", num_labels, "label"):
        for fid in fids:
            key, w = feature(fid, 1, labels)
            d.transitions[key] = w
    for fids in _refs(data, off_attrrefs, b"AFRF", num_attrs, "attribute"):
        for fid in fids:
            key, w = feature(fid, 0, attrs)
            d.state_features[key] = w
    return d


def dump_text(d):
    """What ``crfsuite dump`` prints for ParsedDump `d`."""
    out = ["FILEHEADER = {\n"]
    out += ["  %s: %s\n" % kv for kv in d.header.items()]
    out.append("}\n\nLABELS = {\n")
    out += ["  %5s: %s\n" % (i, name) for name, i in d.labels.items()]
    out.append("}\n\nATTRIBUTES = {\n")
    out += ["  %5s: %s\n" % (i, name) for name, i in d.attributes.items()]
    out.append("}\n\nTRANSITIONS = {\n")
    out += ["  (1) %s --> %s: %f\n" % (a, b, w) for (a, b), w in d.transitions.items()]
    out.append("}\n\nSTATE_FEATURES = {\n")
    out += ["  (0) %s --> %s: %f\n" % (a, b, w) for (a, b), w in d.state_features.items()]
    out.append("}\n\n")
    return "".join(out)
