"""Secrets: provider API keys and client tokens, two secrets so each reader sees only its own.

Neither value appears in the template or in an environment variable: functions get the secret's ARN
(`VD_PROVIDER_SECRET_ARN`, `VD_CLIENT_TOKENS_SECRET_ARN`) and read it at runtime through a cache
(adapters/aws/secrets.py). CloudFormation
generates the first value; operators put the real one with `aws secretsmanager put-secret-value`.
"""

from __future__ import annotations

import json

from aws_cdk import Validations
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.nag import acknowledge
from infra.settings import DeploymentSettings
from visual_degrees.settings import SECRET_FIELDS

# JSON keys of the provider secret: the ones the runtime reads (named in the secret's description).
PROVIDER_KEY_FIELDS = SECRET_FIELDS
# The keys of the generated first value. Frozen: CloudFormation regenerates a secret's value when its
# GenerateSecretString changes, which would wipe the keys operators have put in. Keys added since
# are documented (description, docs/operators.md) and read when present.
TEMPLATE_KEY_FIELDS = ("brave_api_key", "google_api_key", "google_cx", "gemini_api_key")
# CloudFormation can only create a JSON secret by generating one key; the runtime ignores this one.
GENERATED_PLACEHOLDER_KEY = "generated_placeholder"
# The client-token secret is a JSON object {clientId: token}; CloudFormation generates the first.
FIRST_CLIENT_ID = "default"
TOKEN_LENGTH = 48


class RuntimeSecrets(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, settings: DeploymentSettings) -> None:
        super().__init__(scope, construct_id)
        self.provider_keys = secretsmanager.Secret(
            self,
            "ProviderKeys",
            description="Visual Degrees provider API keys: JSON object with "
            + ", ".join(PROVIDER_KEY_FIELDS),
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template=json.dumps(dict.fromkeys(TEMPLATE_KEY_FIELDS, "")),
                generate_string_key=GENERATED_PLACEHOLDER_KEY,
                exclude_punctuation=True,
            ),
            removal_policy=settings.removal,
        )
        self.client_tokens = secretsmanager.Secret(
            self,
            "ClientTokens",
            description="Visual Degrees WebSocket client tokens: JSON object {clientId: token}",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template="{}",
                generate_string_key=FIRST_CLIENT_ID,
                exclude_punctuation=True,  # tokens travel in a query string
                password_length=TOKEN_LENGTH,
            ),
            removal_policy=settings.removal,
        )
        for secret in (self.provider_keys, self.client_tokens):
            Validations.of(secret).acknowledge(
                acknowledge(
                    "AwsSolutions-SMG4",
                    "Provider API keys are issued by third parties (Brave, Google, Gemini) and client "
                    "tokens are handed to people out of band; neither can be rotated by a Lambda without "
                    "the issuer, so operators rotate them by hand (docs/operators.md).",
                )
            )
