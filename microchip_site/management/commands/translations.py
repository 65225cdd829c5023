"""The translations (microchip_site/translations.py, docs/i18n.md):

    python3 manage.py translations update     # makemessages, as CI runs it: new words into the .po
    python3 manage.py translations compile    # each locale/*/LC_MESSAGES/*.po to its .mo
    python3 manage.py translations check      # every message translated, the .mo files current
    python3 manage.py translations unmarked   # words in the templates that no tag marks

`check` and `unmarked` exit 1 when they find something, listing it.
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from microchip_site import translations


class Command(BaseCommand):
    help = "Compile the translations, check them complete, or list unmarked template words."

    def add_arguments(self, parser):
        parser.add_argument("what", choices=("update", "compile", "check", "unmarked"))

    def handle(self, *args, what, **options):
        if what == "update":  # needs GNU gettext's xgettext and msgmerge
            for domain, ignore in translations.SOURCES.items():
                call_command(
                    "makemessages",
                    domain=domain,
                    locale=translations.shipped_languages(),
                    add_location="file",
                    ignore_patterns=list(ignore),
                    verbosity=0,
                )
            return
        if what == "compile":
            for path in translations.compile_all():
                self.stdout.write(f"compiled {path}")
            return
        if what == "check":
            problems = [
                f"{gap.language} {gap.domain}: {gap.why}: {gap.message!r}"
                for gap in translations.gaps()
            ]
            problems += [f"out of date: {path}" for path in translations.stale_mo_files()]
        else:
            problems = [
                f"{item.template}:{item.line}: {item.text!r}"
                for item in translations.unmarked_words()
            ]
        for problem in problems:
            self.stdout.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} found")
        self.stdout.write("all good")
