from django.apps import AppConfig


class InfraConfig(AppConfig):
    name = "infra"
    verbose_name = "Infrastructure"
