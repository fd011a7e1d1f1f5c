# %% [markdown]
# # Configuration schemas: the options of a model
#
# A forecasting model usually has a few settings, such as how many past months it looks at.
# A **configuration schema** declares those settings: their names, types, defaults and allowed
# ranges. The service uses the schema to check the values you choose before it stores a
# configured model, and the widget panel builds its forms from it.
#
# Schemas are standard [JSON Schema (draft-07)](https://json-schema.org/) documents, so any
# tool that reads JSON Schema can read them too.

# %% [markdown]
# ## 1. Declare the options of a model
#
# `create_config_schema` takes a title and one *property* per option. The property constructors
# (`schema_integer`, `schema_number`, `schema_enum`, ...) say what kind of value each option takes.
# An option with a `default` may be left out; one without a default must be given.

# %%
from chaplab.schema import (
    create_config_schema,
    schema_boolean,
    schema_enum,
    schema_integer,
    schema_number,
    schema_to_json,
)

schema = create_config_schema(
    title="Climate lag model",
    description="Monthly dengue cases explained by lagged rainfall and temperature",
    properties={
        "n_lags": schema_integer(description="Months of lag", default=3, minimum=1, maximum=12),
        "alpha": schema_number(description="Ridge penalty", default=0.5, minimum=0),
        "distribution": schema_enum(["poisson", "negative_binomial"], default="negative_binomial"),
        "log_scale": schema_boolean(description="Fit on log cases", default=True),
    },
    additional_properties=False,
)
schema

# %% [markdown]
# ## 2. The schema as JSON text
#
# `schema_to_json` writes the schema as JSON Schema text, for example to publish it with a model
# or to send it to a service. The output below is checked when the notebook runs in CI, so this
# is exactly what you get.

# %% tags=["nbval-check-output"]
print(schema_to_json(schema))

# %% [markdown]
# `pretty=False` gives the compact form, handy for a single line in a configuration file.

# %% tags=["nbval-check-output"]
print(
    schema_to_json(
        create_config_schema(
            title="My Model", properties={"n_samples": schema_integer(default=100)}
        ),
        pretty=False,
    )
)

# %% [markdown]
# ## 3. Check the values you chose
#
# `apply_config_defaults` fills in every option you left out with its default, and
# `validate_config` checks the result against the schema.

# %% tags=["nbval-check-output"]
from chaplab.schema import apply_config_defaults, validate_config

values = apply_config_defaults({"n_lags": 6}, schema)
validate_config(values, schema)
values

# %% [markdown]
# Values that break the rules are refused with **one** error that lists every problem, each
# with the option it concerns. Here the lag is too long, the penalty is negative, and `lag` is a
# typo of an option the schema does not know. In code, `error.problems` holds the same list as
# `(path, message)` pairs.

# %% tags=["nbval-check-output"]
from chaplab.schema import ConfigValidationError

try:
    validate_config(apply_config_defaults({"n_lags": 24, "alpha": -1, "lag": 2}, schema), schema)
except ConfigValidationError as error:
    print(error)

# %% [markdown]
# ## 4. The options of the service's model templates
#
# Every *model template* on the service publishes its options in the same form: its
# `user_options` are the `properties` of its configuration schema. Connect to the service (the
# embedded one here, or the one `CHAP_URL` names) and list what each template offers. Which
# templates there are depends on the service: chaplab's has `regression_model` with three
# options, a new chap-core `seasonal_median` and others without options.

# %%
import chaplab

client = chaplab.connect()
templates = client.list_model_templates()
for template in templates:
    print(
        f"{template.name} (template #{template.id}): "
        f"options {', '.join(template.user_options) or 'none'}"
    )

# %% [markdown]
# Turn a template's options back into a `ConfigSchema` to read them, fill in defaults and check
# values on your side before sending anything. On the wire, an option **without** a default must
# be given when a configured model is created; `require_options_without_default=True` checks that
# too. Here the template is `regression_model` where the service has it, else `seasonal_median`.

# %%
from chaplab.schema import ConfigSchema

by_name = {t.name: t for t in templates}
template = by_name.get("regression_model") or by_name["seasonal_median"]
template_schema = ConfigSchema.from_dict(
    {"title": template.display_name or template.name, "properties": template.user_options}
)
print(template_schema)
chosen = apply_config_defaults({}, template_schema)
validate_config(chosen, template_schema, require_options_without_default=True)
print(chosen)

# %% [markdown]
# ## 5. Configure a model with your values
#
# `create_configured_model` stores the template with your option values under a name of your
# choice. The service **rewrites the name** to `<template name>:<your name>`: use the returned
# name when you start evaluations with this model.

# %% tags=["nbval-check-output"]
configured = client.create_configured_model("my_choice", template.id, chosen)
print(configured.name.replace(template.name, "<template name>", 1))
print("stored with the chosen values:", configured.user_option_values == chosen)

# %% [markdown]
# The service checks the values against the template's schema too and refuses values that break
# it with the reason, so a broken configuration is never stored. chaplab's service answers 422;
# chap-core 2.5.1 answers 500 with the reason in its message.

# %%
from chaplab.client import ChapHTTPError

try:
    client.create_configured_model("with_a_typo", template.id, {**chosen, "no_such_option": 1})
except ChapHTTPError as error:
    print(error.status_code, error.message)
else:
    print("stored: this service does not check option names")
