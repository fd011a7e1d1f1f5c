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

# %%
# NBVAL_CHECK_OUTPUT
print(schema_to_json(schema))

# %% [markdown]
# `pretty=False` gives the compact form, handy for a single line in a configuration file.

# %%
# NBVAL_CHECK_OUTPUT
print(schema_to_json(create_config_schema(title="My Model",
                                          properties={"n_samples": schema_integer(default=100)}),
                     pretty=False))

# %% [markdown]
# ## 3. Check the values you chose
#
# `apply_config_defaults` fills in every option you left out with its default, and
# `validate_config` checks the result against the schema.

# %%
# NBVAL_CHECK_OUTPUT
from chaplab.schema import apply_config_defaults, validate_config

values = apply_config_defaults({"n_lags": 6}, schema)
validate_config(values, schema)
values

# %% [markdown]
# Values that break the rules are refused with **one** error that lists every problem, each
# with the option it concerns. Here the lag is too long, the penalty is negative, and `lag` is a
# typo of an option the schema does not know. In code, `error.problems` holds the same list as
# `(path, message)` pairs.

# %%
# NBVAL_CHECK_OUTPUT
from chaplab.schema import ConfigValidationError

try:
    validate_config(apply_config_defaults({"n_lags": 24, "alpha": -1, "lag": 2}, schema), schema)
except ConfigValidationError as error:
    print(error)
