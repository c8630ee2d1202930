"""Write translations given as a Python dict {(context, source): translation} into the .ts (a helper for
translating in bulk without Qt Linguist): ``python tools/fill_translations.py FILE.py`` (FILE defines ZH)."""
import runpy
import sys
import xml.etree.ElementTree as ET

from update_translations import TS


def fill(translations, ts=TS):
    tree = ET.parse(ts)
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            said = translations.get((name, message.findtext("source")))
            if said:
                node = message.find("translation")
                node.text = said
                node.attrib.pop("type", None)
    tree.write(ts, encoding="utf-8", xml_declaration=True)
    text = ts.read_text(encoding="utf-8").replace("<?xml version='1.0' encoding='utf-8'?>",
                                                  '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>', 1)
    ts.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")


if __name__ == "__main__":
    fill(runpy.run_path(sys.argv[1])["ZH"])
