"""CRFsuite items from Python: python-crfsuite's sequences (an item a list of attribute names
or a dict) written as a CRFsuite item file, the input of vitesse.train_items. What they cannot
hold raises vitesse.Error (a ValueError; ItemTypeError, also a TypeError, for a wrong type)
naming the sequence, the item and what is wrong."""
import math
import os

from ._vitesse import Error, write_items


class ItemTypeError(Error, TypeError):
    """A bad item or label of the wrong type: a vitesse.Error, and a TypeError."""


def is_path(x):
    """Whether `x` names a file (else it is data held in memory)."""
    return isinstance(x, (str, bytes, os.PathLike))


def _item_text(s, what):
    """A piece of an attribute name or label as a str (bytes are UTF-8); vitesse.Error for
    what an item line cannot hold (a tab, a newline, a NUL, bytes that are no UTF-8, a str
    UTF-8 cannot encode: a lone surrogate)."""
    if isinstance(s, bytes):
        try:
            s = s.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Error("%s: bytes that are no UTF-8 (byte %d): %r" % (what, e.start, s)) from None
    elif not isinstance(s, str):
        raise ItemTypeError("%s must be a str, not %s" % (what, type(s).__name__))
    for ch, say in (("\t", "a tab"), ("\n", "a newline"), ("\0", "a NUL character")):
        if ch in s:
            raise Error("%s holds %s, which an item file cannot hold: %r" % (what, say, s))
    if not s.isascii():
        _check_utf8(s, what)
    return s


def _check_label(label, where):
    """vitesse.Error naming `where` when `label` holds a control character (below U+0020, or
    U+007F), which a model cannot hold (its loader refuses it): refused before training."""
    for ch in label:
        if ch < " " or ch == "\x7f":
            raise Error("%s: the label holds the control byte 0x%02x, which a model cannot "
                        "hold: %r" % (where, ord(ch), label))


def _check_utf8(s, what):
    """vitesse.Error naming `what` when str `s` holds a character UTF-8 cannot encode."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise Error("%s holds %r at %d, which UTF-8 cannot encode (a lone surrogate): %r"
                    % (what, s[e.start], e.start, s)) from None


def _escaped(s):
    """A name as an item file field: CRFsuite's escapes of ':' and '\\'."""
    return s.replace("\\", "\\\\").replace(":", "\\:")


def _attributes(x, where):
    """(name, weight) pairs of item `x` as python-crfsuite reads it: a list (or set) of
    attribute names of weight 1, or a dict {name: str} (attribute 'name:str'), {name: number
    or bool} (attribute 'name' of that weight) or {name: dict, list or set} (the nested item's
    attributes, prefixed 'name:')."""
    if isinstance(x, (str, bytes)):
        raise ItemTypeError("%s: an item is a list of attribute names or a dict, not a %s"
                        % (where, type(x).__name__))
    if not isinstance(x, dict):
        try:
            names = iter(x)
        except TypeError:
            raise ItemTypeError("%s: an item is a list of attribute names or a dict, not a %s"
                            % (where, type(x).__name__)) from None
        for k in names:
            yield _item_text(k, "%s: attribute %r" % (where, k)), 1.0
        return
    for k, v in x.items():
        key = _item_text(k, "%s: attribute %r" % (where, k))
        if isinstance(v, (dict, list, set)):
            for name, w in _attributes(v, where):
                yield key + ":" + name, w
        elif isinstance(v, (str, bytes)):
            yield key + ":" + _item_text(v, "%s: the value of %r" % (where, k)), 1.0
        else:
            try:
                w = float(v)
            except OverflowError:  # an int past a double's range: no weight
                raise Error("%s: attribute %r has a weight too large for a float (%s of %d "
                            "bits)" % (where, k, type(v).__name__, _bits(v))) from None
            except (TypeError, ValueError):
                raise ItemTypeError("%s: the value of %r must be a str, a number, a bool or a "
                                "nested item, not %s" % (where, k, type(v).__name__)) from None
            if not math.isfinite(w):
                raise Error("%s: attribute %r has weight %r: weights must be finite"
                                 % (where, k, w))
            yield key, w


def _bits(v):
    """The bit length of int-like `v` (its size when float() overflows), or -1."""
    try:
        return int(v).bit_length()
    except (TypeError, ValueError, OverflowError):
        return -1


def _esc(s):
    """_escaped, skipping the copies when there is nothing to escape."""
    if ":" in s or "\\" in s:
        return s.replace("\\", "\\\\").replace(":", "\\:")
    return s


def _fields_fast(item):
    """_fields for the common items (a dict of str keys to str, bool, int or float values, or
    a list of str), or None for anything else or anything _fields would refuse (it then says
    what is wrong). The same fields, built without the general path's generators: writing the
    items of a large corpus costs a fraction of the training."""
    out = []
    if type(item) is dict:
        for k, v in item.items():
            if type(k) is not str or not k:
                return None
            tv = type(v)
            if tv is str:
                out.append(_esc(k + ":" + v))
            elif tv is bool:
                out.append(_esc(k) if v else _esc(k) + ":0.0")
            elif tv is float or tv is int:
                try:
                    w = float(v)
                except OverflowError:  # an int past a double's range: _fields says so
                    return None
                if w == 1.0:
                    out.append(_esc(k))
                elif math.isfinite(w):
                    out.append("%s:%r" % (_esc(k), w))
                else:
                    return None
            else:
                return None
    elif type(item) is list:
        for k in item:
            if type(k) is not str or not k:
                return None
            out.append(_esc(k))
    else:
        return None
    return out


def _fields_text(item, where):
    """The attribute fields of an item line joined by tabs (_fields)."""
    fast = _fields_fast(item)
    if fast is not None:
        text = "\t".join(fast)
        if (text.count("\t") == len(fast) - 1 and "\n" not in text and "\0" not in text
                and (text.isascii() or _encodes(text))):
            return text
    return "\t".join(_fields(item, where))


def _encodes(text):
    """Whether str `text` encodes as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _fields(item, where):
    """The attribute fields of an item line: escaped names, ':weight' for weights other
    than 1."""
    fields = []
    for name, w in _attributes(item, where):
        if not name:  # it would vanish between the tabs
            raise Error("%s: an attribute name is empty" % where)
        fields.append(_escaped(name) if w == 1.0 else "%s:%r" % (_escaped(name), w))
    return fields


def item_lines(xseq, what="xseq"):
    """The item lines of one sequence to tag (python-crfsuite's xseq: a list of items, each a
    list of attribute names or a dict), without labels: a tab, then the attribute fields."""
    if isinstance(xseq, (str, bytes, dict)):
        raise ItemTypeError("%s: a sequence is a list of items, not a %s"
                        % (what, type(xseq).__name__))
    try:
        items = list(xseq)
    except TypeError:
        raise ItemTypeError("%s: a sequence is a list of items, not a %s"
                        % (what, type(xseq).__name__)) from None
    return ["_\t" + _fields_text(item, "%s item %d" % (what, t)) for t, item in enumerate(items)]


def _write_items(pairs, path, what):
    """Writes (xseq, yseq) pairs as a CRFsuite item file (one item a line: the label, then the
    attributes, TAB-separated, 'name:weight' for weights other than 1; a blank line after each
    sequence). Empty sequences are left out; ValueError when nothing is left. A list of common
    items (_fields_fast's) is written by the extension; anything else here, which says what is
    wrong."""
    if isinstance(pairs, list):
        n = write_items(pairs, path)
        if n is not None:
            if n == 0:
                raise Error("%s has no items" % what)
            return
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for s, pair in enumerate(pairs):
            try:
                xseq, yseq = pair
                xseq, yseq = list(xseq), list(yseq)
            except (TypeError, ValueError):
                raise ItemTypeError("%s[%d]: expected an (xseq, yseq) pair (zip(X, y) of "
                                "sklearn-crfsuite's X and y)" % (what, s)) from None
            if len(xseq) != len(yseq):
                raise Error("%s[%d]: %d items but %d labels"
                                 % (what, s, len(xseq), len(yseq)))
            if not xseq:
                continue
            for t, (item, label) in enumerate(zip(xseq, yseq)):
                where = "%s[%d] item %d" % (what, s, t)
                if isinstance(label, (list, tuple)):
                    raise ItemTypeError("%s: the label is a %s, not a str: pass (xseq, yseq) "
                                    "pairs, e.g. zip(X, y)" % (where, type(label).__name__))
                label = _item_text(label, "%s: the label" % where)
                if not label:
                    raise Error("%s: the label is empty" % where)
                _check_label(label, where)
                text = _fields_text(item, where)
                f.write(_escaped(label) + ("\t" + text if text else "") + "\n")
            f.write("\n")
            n += 1
    if n == 0:
        raise Error("%s has no items" % what)


def item_files(x, what, tmpdir):
    """Item file paths: `x` itself (a path or a list of paths), or a file written from the
    (xseq, yseq) pairs of `x`."""
    if x is None:
        return None
    if is_path(x):
        return [x]
    x = list(x)
    if not x:
        raise Error("%s is empty" % what)
    if all(is_path(i) for i in x):
        return x
    if any(is_path(i) for i in x):
        raise ItemTypeError("%s mixes paths and sequences" % what)
    path = os.path.join(tmpdir, what + ".items")
    _write_items(x, path, what)
    return [path]
